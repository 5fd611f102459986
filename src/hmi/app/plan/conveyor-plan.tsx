import { signal, useComputed, useSignal, type Signal } from '@preact/signals';
import type { JSX } from 'preact';
import { useEffect, useId, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';
import { wallboard } from '../prefs.ts';
import type { ConveyorPlanProps, PlanLocation } from './index.ts';
import { BOX, computeLayout, neighbour, type Layout } from './layout.ts';
import { Legend } from './legend.tsx';
import { defIds, PlanDefs } from './plan-defs.tsx';
import { BandsLayer, LinksLayer, NodesLayer, type Detail } from './plan-layers.tsx';
import { useGestures } from './gestures.ts';
import { fitView, minK, revealed, zoomAt, type View } from './viewport.ts';

// The conveyor plan (docs/hmi.md, "Conveyor map"): the locations drawn from their
// coordinates (layout.ts), the links between them, the colour, pattern and glyph of
// each location's state, and the units on it once zoomed in far enough. Zoom with the
// buttons, the wheel, a pinch or + and −; pan by dragging; arrow keys go from location
// to location and Enter chooses one. With `onLinkDrawn` a link can be drawn: choose a
// location, then "Link to…", then the second location. In wallboard mode: the plan
// only, nothing to press.

export interface PlanOptions {
  /** Show the legend of colours and patterns (default true). */
  legend?: boolean;
  /** The view fits the plan again whenever this changes (a new filter, say). */
  viewKey?: string;
  /** The plan's accessible name. */
  label?: string;
  /**
   * Where on the page the plan is ('map', 'commissioning'): its frame's size is kept
   * under this name, so that the plan opened there again is drawn fitted at once.
   */
  place?: string;
}

/** The frame's size by place, as last measured. */
const frameSizes = new Map<string, { w: number; h: number }>();

const STEP = 1.4;

/** Same locations in the same groups: the layout stays. */
function sameTopology(a: readonly PlanLocation[], b: readonly PlanLocation[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id || a[i]!.group !== b[i]!.group) return false;
  return true;
}

export function ConveyorPlan(props: ConveyorPlanProps & PlanOptions): JSX.Element {
  const { locations, links = [], selected, onSelect, onLinkDrawn, group, legend = true, viewKey = '', place = '' } = props;
  const board = wallboard.value;
  const uid = useId().replace(/[^A-Za-z0-9]/g, '');
  const ids = useMemo(() => defIds(`plan${uid}`), [uid]);

  const shown = useMemo(() => (group ? locations.filter((l) => l.group === group) : locations), [locations, group]);
  const topology = useRef<{ of: readonly PlanLocation[]; layout: Layout } | undefined>(undefined);
  if (!topology.current || !sameTopology(topology.current.of, shown)) topology.current = { of: shown, layout: computeLayout(shown) };
  else topology.current.of = shown;
  const layout = topology.current.layout;

  // One signal per location: a changed location sets its own, and only its box redraws.
  const cells = useRef(new Map<string, Signal<PlanLocation>>()).current;
  for (const l of shown) {
    const cell = cells.get(l.id);
    if (!cell) cells.set(l.id, signal(l));
    else if (cell.peek() !== l) cell.value = l;
  }
  if (cells.size > layout.placed.size) for (const id of cells.keys()) if (!layout.placed.has(id)) cells.delete(id);

  const shownLinks = useMemo(() => (group ? links.filter((l) => layout.placed.has(l.from) && layout.placed.has(l.to)) : links), [links, layout, group]);

  const frame = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const size = useSignal(frameSizes.get(place) ?? { w: 0, h: 0 });
  const view = useSignal<View>({ k: 1, tx: 0, ty: 0 });
  /** The user moved the view: it no longer follows the plan's size by itself. */
  const touched = useRef(false);
  const detail = useComputed<Detail>(() => (view.value.k >= 2.2 ? 2 : view.value.k >= 1.1 ? 1 : 0));
  const linkFrom = useSignal<string | undefined>(undefined);
  const active = useRef<string | undefined>(undefined);

  // Not measured at once: that would lay out thousands of boxes before they are shown.
  // The size kept from the last time is right unless the window changed meanwhile.
  useEffect(() => {
    const el = frame.current;
    if (!el) return;
    const observer = new ResizeObserver(() => {
      const now = { w: el.clientWidth, h: el.clientHeight };
      // A plan on its way out (hidden, then removed) is no size to remember.
      if (now.w > 0 && now.h > 0) frameSizes.set(place, now);
      if (now.w !== size.peek().w || now.h !== size.peek().h) size.value = now;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // The buttons sit over the top of the frame (the folded legend only over a corner of
  // its bottom); on a wallboard there are no buttons and the legend is below the frame.
  const insets = { top: board ? 0 : 52, bottom: 0 };
  // A wall screen is read from afar: a small site may fill it.
  const fit = () => (view.value = fitView(size.value.w, size.value.h, layout.width, layout.height, insets, board ? 3 : 1.5));
  const lowest = () => minK(size.value.w, size.value.h, layout.width, layout.height);
  useLayoutEffect(() => {
    touched.current = false;
  }, [viewKey]);
  useLayoutEffect(() => {
    if (!touched.current) fit();
  }, [layout, size.value.w, size.value.h, viewKey, board]);
  // A location chosen elsewhere (the address, a search) is brought into sight.
  useEffect(() => {
    const p = selected ? layout.placed.get(selected) : undefined;
    if (p) view.value = revealed(view.value, p.x, p.y, BOX, size.value.w, size.value.h);
  }, [selected, layout]);
  useEffect(() => {
    if (!onLinkDrawn || !selected) linkFrom.value = undefined;
  }, [onLinkDrawn, selected]);

  const zoomBy = (factor: number) => {
    touched.current = true;
    view.value = zoomAt(view.value, factor, size.value.w / 2, size.value.h / 2, lowest());
  };

  const nodeOf = (id: string) => svg.current?.querySelector<SVGGElement>(`[data-id="${id.replace(/["\\]/g, '\\$&')}"]`) ?? null;

  // One location at a time is in the tab order (roving tab stop): the plan is one stop.
  useLayoutEffect(() => {
    if (board) return;
    const first = layout.placed.keys().next().value;
    const want = [active.current, selected, first].find((id) => id !== undefined && layout.placed.has(id));
    const current = svg.current?.querySelector<SVGGElement>('.plan-loc[tabindex="0"]');
    if (current?.dataset.id === want) return;
    if (current) current.tabIndex = -1;
    if (want) {
      const el = nodeOf(want);
      if (el) el.tabIndex = 0;
    }
  });

  const focusNode = (id: string) => {
    const el = nodeOf(id);
    if (!el) return;
    svg.current?.querySelector<SVGGElement>('.plan-loc[tabindex="0"]')?.setAttribute('tabindex', '-1');
    el.tabIndex = 0;
    active.current = id;
    el.focus({ preventScroll: true });
    const p = layout.placed.get(id)!;
    view.value = revealed(view.value, p.x, p.y, BOX, size.value.w, size.value.h);
  };

  const choose = (id: string) => {
    if (board) return;
    active.current = id;
    const from = linkFrom.peek();
    if (from !== undefined) {
      linkFrom.value = undefined;
      if (from !== id) onLinkDrawn?.(from, id);
      return;
    }
    onSelect?.(id);
  };

  const { onPointerDown, onPointerMove, onPointerEnd, onWheel } = useGestures(svg, view, {
    lowest,
    onMove: () => (touched.current = true),
    onTap: choose,
  });

  const onKeyDown = (e: KeyboardEvent) => {
    const id = (e.target as Element).closest?.('[data-id]')?.getAttribute('data-id') ?? undefined;
    const move = (dx: number, dy: number) => {
      e.preventDefault();
      const next = id ? neighbour(layout, id, dx, dy) : layout.placed.keys().next().value;
      if (next) focusNode(next);
    };
    switch (e.key) {
      case 'ArrowLeft':
        return move(-1, 0);
      case 'ArrowRight':
        return move(1, 0);
      case 'ArrowUp':
        return move(0, -1);
      case 'ArrowDown':
        return move(0, 1);
      case 'Enter':
      case ' ':
        if (id) {
          e.preventDefault();
          choose(id);
        }
        return;
      case '+':
      case '=':
        e.preventDefault();
        return zoomBy(STEP);
      case '-':
        e.preventDefault();
        return zoomBy(1 / STEP);
      case '0':
        e.preventDefault();
        touched.current = false;
        return fit();
      case 'Escape':
        if (linkFrom.peek() !== undefined) linkFrom.value = undefined;
    }
  };
  const onFocusIn = (e: FocusEvent) => {
    const id = (e.target as Element).getAttribute?.('data-id');
    if (id) active.current = id;
  };

  const v = view.value;
  const ring = selected ? layout.placed.get(selected) : undefined;
  const fromRing = linkFrom.value ? layout.placed.get(linkFrom.value) : undefined;
  const help = `${uid}-help`;
  return (
    <div class={`plan${board ? ' plan-board' : ''}`} data-plan>
      <div class="plan-frame" ref={frame}>
        <svg
          ref={svg}
          class={`plan-svg detail-${detail.value}${linkFrom.value ? ' linking' : ''}`}
          role="group"
          aria-label={props.label ?? t('plan.label')}
          aria-describedby={board ? undefined : help}
          data-zoom={v.k.toFixed(3)}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerEnd}
          onPointerCancel={onPointerEnd}
          onWheel={onWheel}
          onKeyDown={onKeyDown}
          onFocusIn={onFocusIn}
        >
          <PlanDefs ids={ids} />
          <g transform={`translate(${v.tx.toFixed(1)} ${v.ty.toFixed(1)}) scale(${v.k.toFixed(4)})`}>
            <BandsLayer layout={layout} />
            <LinksLayer links={shownLinks} layout={layout} selected={selected} ids={ids} />
            <NodesLayer layout={layout} cells={cells} detail={detail} ids={ids} />
            {ring && <rect class="plan-ring" x={ring.x - 4} y={ring.y - 4} width={BOX + 8} height={BOX + 8} rx="7" aria-hidden="true" />}
            {fromRing && <rect class="plan-ring from" x={fromRing.x - 4} y={fromRing.y - 4} width={BOX + 8} height={BOX + 8} rx="7" aria-hidden="true" />}
          </g>
        </svg>
        {!board && (
          <div class="plan-tools" role="group" aria-label={t('plan.tools')}>
            <button type="button" class="plan-zoom-in" aria-label={t('plan.zoomIn')} title={t('plan.zoomIn')} onClick={() => zoomBy(STEP)}>
              +
            </button>
            <button type="button" class="plan-zoom-out" aria-label={t('plan.zoomOut')} title={t('plan.zoomOut')} onClick={() => zoomBy(1 / STEP)}>
              −
            </button>
            <button
              type="button"
              class="plan-fit"
              onClick={() => {
                touched.current = false;
                fit();
              }}
            >
              {t('plan.fit')}
            </button>
            {onLinkDrawn && selected && (
              <button
                type="button"
                class="plan-link-to"
                aria-pressed={linkFrom.value !== undefined}
                onClick={() => (linkFrom.value = linkFrom.peek() ? undefined : selected)}
              >
                {t('plan.linkTo')}
              </button>
            )}
          </div>
        )}
        <p class="plan-hint" role="status">
          {linkFrom.value ? t('plan.linkHint', { from: linkFrom.value }) : ''}
        </p>
      </div>
      {legend && <Legend ids={ids} />}
      {!board && (
        <p id={help} class="visually-hidden">
          {t('plan.keys')}
        </p>
      )}
    </div>
  );
}
