import type { ReadonlySignal, Signal } from '@preact/signals';
import { Component } from 'preact';
import { plural, t } from '../i18n.ts';
import type { PlanLink, PlanLocation } from './index.ts';
import { BAND_HEAD, BOX, partsOf, ROW_LABEL, type Layout } from './layout.ts';
import { Glyph, hasPattern, type DefIds } from './plan-defs.tsx';

// The plan's layers. Each is a component that redraws only when what it draws
// changed: the bands with the layout, the links with the links or the selection, the
// locations each on its own (a location reads its own signal), so an event about one
// location redraws that location and nothing else.

/** How much is drawn: 0 boxes only; 1 with names and glyphs; 2 with the units' barcodes. */
export type Detail = 0 | 1 | 2;

export class BandsLayer extends Component<{ layout: Layout }> {
  override shouldComponentUpdate(next: { layout: Layout }) {
    return next.layout !== this.props.layout;
  }
  override render() {
    return (
      <g class="plan-bands" aria-hidden="true">
        {this.props.layout.bands.map((b) => (
          <g key={b.area}>
            <rect class="plan-band" x={b.x} y={b.y} width={b.w} height={b.h} rx="6" />
            <text class="plan-band-name" x={b.x + 8} y={b.y + BAND_HEAD - 9}>
              {b.area}
              {b.groups.length > 0 && <tspan class="plan-band-groups">{`  ${b.groups.join(' · ')}`}</tspan>}
            </text>
            {b.rows.map((r) => (
              <text key={r.aisle} class="plan-row-name" x={b.x + ROW_LABEL - 6} y={r.y + r.h / 2 + 4}>
                {r.aisle}
              </text>
            ))}
          </g>
        ))}
      </g>
    );
  }
}

interface LinksProps {
  links: readonly PlanLink[];
  layout: Layout;
  selected: string | undefined;
  ids: DefIds;
}

export class LinksLayer extends Component<LinksProps> {
  override shouldComponentUpdate(next: LinksProps) {
    const p = this.props;
    return next.links !== p.links || next.layout !== p.layout || next.selected !== p.selected;
  }
  override render() {
    const { links, layout, selected, ids } = this.props;
    const seen = new Set<string>();
    const drawn: { key: string; d: string; kind: string; lit: boolean; disabled: boolean; from: string; to: string }[] = [];
    for (const l of links) {
      const a = layout.placed.get(l.from);
      const b = layout.placed.get(l.to);
      if (!a || !b) continue;
      // Two routes through the same hop draw one line.
      const key = `${l.kind}|${l.from}|${l.to}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const lit = l.highlighted === true || (selected !== undefined && (l.from === selected || l.to === selected));
      drawn.push({ key, d: curve(a.x, a.y, b.x, b.y), kind: l.kind, lit, disabled: l.disabled === true, from: l.from, to: l.to });
    }
    // Highlighted lines last, on top of the others.
    drawn.sort((x, y) => Number(x.lit) - Number(y.lit));
    return (
      <g class="plan-links" aria-hidden="true">
        {drawn.map((l) => (
          <path
            key={l.key}
            class={`plan-link plan-link-${l.kind}${l.lit ? ' lit' : ''}${l.disabled ? ' disabled' : ''}`}
            d={l.d}
            marker-end={`url(#${ids.arrow(l.lit ? 'highlighted' : l.kind)})`}
            data-from={l.from}
            data-to={l.to}
            data-kind={l.kind}
          />
        ))}
      </g>
    );
  }
}

/** A slightly bent line from box to box, ending at the edges: A→B and B→A stay apart. */
function curve(ax: number, ay: number, bx: number, by: number): string {
  const h = BOX / 2;
  const [x1, y1, x2, y2] = [ax + h, ay + h, bx + h, by + h];
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
  const sx = x1 + ux * (h + 1);
  const sy = y1 + uy * (h + 1);
  const ex = x2 - ux * (h + 1);
  const ey = y2 - uy * (h + 1);
  // Bent in proportion to the visible part: a hop to the next box stays straight.
  const bend = Math.min(24, Math.max(0, len - BOX - 2) * 0.12);
  const cx = (sx + ex) / 2 - uy * bend;
  const cy = (sy + ey) / 2 + ux * bend;
  const r = (n: number) => Math.round(n * 10) / 10;
  return `M${r(sx)} ${r(sy)}Q${r(cx)} ${r(cy)} ${r(ex)} ${r(ey)}`;
}

interface NodesProps {
  layout: Layout;
  cells: ReadonlyMap<string, Signal<PlanLocation>>;
  detail: ReadonlySignal<Detail>;
  ids: DefIds;
}

export class NodesLayer extends Component<NodesProps> {
  override shouldComponentUpdate(next: NodesProps) {
    return next.layout !== this.props.layout || next.cells !== this.props.cells;
  }
  override render() {
    const { layout, cells, detail, ids } = this.props;
    const nodes = [];
    for (const p of layout.placed.values()) {
      const cell = cells.get(p.id);
      if (cell) nodes.push(<Node key={p.id} x={p.x} y={p.y} cell={cell} detail={detail} ids={ids} />);
    }
    return <g class="plan-nodes">{nodes}</g>;
  }
}

const trimZeros = (s: string) => s.replace(/^0+(?=.)/, '');

/** What a box says about itself: its X, and level and side where there are several. */
function shortName(id: string): string {
  const [, , x, y, z] = partsOf(id);
  if (!x) return id;
  return /^0*$/.test(y) && /^0*$/.test(z) ? trimZeros(x) : `${trimZeros(x)}·${trimZeros(y)}·${trimZeros(z)}`;
}

export function stateText(state: PlanLocation['state']) {
  return t(`plan.state.${state}`);
}

function Node({ x, y, cell, detail, ids }: { x: number; y: number; cell: Signal<PlanLocation>; detail: ReadonlySignal<Detail>; ids: DefIds }) {
  const loc = cell.value;
  const level = detail.value;
  const units = loc.units ?? [];
  const label = `${loc.id}: ${stateText(loc.state)}${units.length ? `; ${plural('plan.units', units.length, { list: units.join(', ') })}` : ''}`;
  // The names are beside the button, not in it: its accessible name is the full
  // coordinate and state, which the short name on the box is no part of.
  return (
    <g class={`plan-cell s-${loc.state}`} transform={`translate(${x} ${y})`}>
      <g class="plan-loc" data-id={loc.id} data-state={loc.state} data-units={units.join(' ')} role="button" tabindex={-1} aria-label={label}>
        <rect class="plan-box" width={BOX} height={BOX} rx="4" />
        {hasPattern(loc.state) && <rect class="plan-hatch" width={BOX} height={BOX} rx="4" fill={`url(#${ids.pattern(loc.state)})`} />}
        {units.length > 0 && level < 2 && <circle class="plan-unit-dot" cx={BOX - 7} cy={BOX - 7} r="4.5" />}
        {level >= 1 && <Glyph state={loc.state} x={2} y={2} />}
      </g>
      {level >= 1 && (
        <text class="plan-loc-name" x={BOX - 3} y="11" aria-hidden="true">
          {shortName(loc.id)}
        </text>
      )}
      {level >= 2 &&
        units.slice(0, 2).map((u, i) => {
          // Two lines at most: the second says how many more there are.
          const text = i === 1 && units.length > 2 ? `+${units.length - 1}` : u;
          // A long barcode is squeezed into the box rather than cut.
          const fit = text.length > 9 ? { textLength: BOX - 5, lengthAdjust: 'spacingAndGlyphs' } : {};
          return (
            <text key={u} class="plan-unit-code" x="2.5" y={22 + i * 7} aria-hidden="true" {...fit}>
              {text}
            </text>
          );
        })}
    </g>
  );
}
