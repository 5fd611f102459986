import { useSignal } from '@preact/signals';
import type { RefObject } from 'preact';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { Failure, outcomeTo, Toasts, useToast } from '../../feedback.tsx';
import { plural, t } from '../../i18n.ts';
import { wallboard } from '../../prefs.ts';
import { replaceRoute } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { ConveyorPlan, usePlanData, type PlanData } from '../../plan/index.ts';
import { LocationPanel } from './location-panel.tsx';

// The conveyor map (docs/hmi.md, "Conveyor map"): the whole site as a plan, live, with
// a filter by location group (and the groups below it) and a search by coordinate. A
// location chosen on the plan opens its details beside it; the address names it
// (`#/map/AREA/AISLE/X/Y/Z`), so a link or a bookmark opens it again. In wallboard
// mode the plan alone fills the screen.

export default function MapScreen({ rest }: ScreenProps) {
  const data = usePlanData();
  const board = wallboard.value;
  const selected = rest && !board ? decodeURIComponent(rest) : undefined;
  const group = useSignal('');
  const toast = useToast();
  const onOutcome = outcomeTo(toast);

  const locations = data.locations.value;
  const links = data.links.value;
  const filter = group.value;
  const shown = useMemo(() => {
    if (!filter) return { locations, links };
    const names = data.groupsBelow(filter);
    const inGroup = locations.filter((l) => l.group !== undefined && names.has(l.group));
    const ids = new Set(inGroup.map((l) => l.id));
    return { locations: inGroup, links: links.filter((l) => ids.has(l.from) && ids.has(l.to)) };
  }, [locations, links, filter, data.groupParents.value]);
  const current = selected ? locations.find((l) => l.id === selected) : undefined;

  const select = (id: string) => replaceRoute('map', id);
  const find = (text: string) => {
    const wanted = text.trim().toUpperCase();
    if (!wanted) return;
    const hit = locations.find((l) => l.id.toUpperCase() === wanted) ?? locations.find((l) => l.id.toUpperCase().includes(wanted));
    if (!hit) return onOutcome('failed', t('map.notFound', { text: text.trim() }));
    if (!shown.locations.includes(hit)) group.value = '';
    select(hit.id);
  };

  const body = useRef<HTMLDivElement>(null);
  useFillHeight(body);
  // The height the plan had last time, from the first render on: the plan is drawn
  // fitted to the frame it had then, and need not move when the effect has measured.
  const lastHeight = filledHeight ? ({ '--map-h': filledHeight } as Record<string, string>) : undefined;

  const loading = data.loading.value && locations.length === 0;
  return (
    <section class={`screen map${board ? ' map-board' : ''}`} aria-labelledby="map-title">
      <div class="screen-head map-head">
        <h1 id="map-title">{t('map.title')}</h1>
        {!board && <Filters data={data} group={filter} setGroup={(g) => (group.value = g)} onFind={find} />}
        <p class="map-count" role="status">
          {loading ? t('screen.loading') : plural('map.count', locations.length, { shown: shown.locations.length })}
        </p>
      </div>
      {/* The wallboard is looked at, not used: no retry there. */}
      {data.error.value !== undefined && <Failure error={data.error.value} retry={board ? undefined : () => data.reload()} />}
      <div class={`map-body${selected ? ' with-panel' : ''}`} ref={body} style={lastHeight}>
        <ConveyorPlan
          locations={shown.locations}
          links={shown.links}
          selected={selected}
          onSelect={select}
          viewKey={filter}
          label={t('map.title')}
          place="map"
        />
        {!loading && shown.locations.length === 0 && <p class="empty map-empty">{t(filter ? 'map.emptyGroup' : 'map.empty')}</p>}
        {selected && (
          <LocationPanel id={selected} plan={current} onClose={() => replaceRoute('map')} onOutcome={onOutcome} onChanged={() => data.refresh(selected)} />
        )}
      </div>
      <Toasts toast={toast} />
    </section>
  );
}

let filledHeight: string | undefined;

/**
 * The plan reaches down to the bottom of the window, whatever is above it: the top
 * bar takes one line or two, by the width of the screen and the language. Handed to
 * the style sheet as `--map-h` (a CSSOM property, which the CSP allows).
 */
function useFillHeight(ref: RefObject<HTMLDivElement | null>) {
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const fit = () => {
      const top = el.getBoundingClientRect().top + window.scrollY;
      const main = el.closest('main');
      const below = main ? parseFloat(getComputedStyle(main).paddingBottom) || 0 : 0;
      const h = `${Math.max(240, Math.floor(window.innerHeight - top - below - 1))}px`;
      filledHeight = h;
      if (el.style.getPropertyValue('--map-h') !== h) el.style.setProperty('--map-h', h);
    };
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(document.body);
    window.addEventListener('resize', fit);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', fit);
    };
  }, []);
}

/** The groups as a tree: each below its parent, indented. */
function groupOptions(names: readonly string[], parents: ReadonlyMap<string, string | undefined>): { name: string; depth: number }[] {
  const children = new Map<string | undefined, string[]>();
  for (const name of names) {
    const parent = parents.get(name);
    const key = parent !== undefined && parents.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), name]);
  }
  const out: { name: string; depth: number }[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const name of children.get(parent) ?? []) {
      out.push({ name, depth });
      walk(name, depth + 1);
    }
  };
  walk(undefined, 0);
  return out;
}

function Filters({ data, group, setGroup, onFind }: { data: PlanData; group: string; setGroup: (g: string) => void; onFind: (text: string) => void }) {
  const text = useSignal('');
  const options = useMemo(() => groupOptions(data.groups.value, data.groupParents.value), [data.groups.value, data.groupParents.value]);
  return (
    <div class="map-filters" role="group" aria-label={t('map.filters')}>
      {options.length > 0 && (
        <div class="map-field">
          <label for="map-group">{t('map.group')}</label>
          <select id="map-group" value={group} onChange={(e) => setGroup(e.currentTarget.value)}>
            <option value="">{t('map.allGroups')}</option>
            {options.map((o) => (
              <option key={o.name} value={o.name}>
                {`${'\u00a0\u00a0'.repeat(o.depth)}${o.name}`}
              </option>
            ))}
          </select>
        </div>
      )}
      <form
        class="map-field map-find"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          onFind(text.value);
        }}
      >
        <label for="map-find">{t('map.find')}</label>
        <input
          id="map-find"
          type="search"
          autoComplete="off"
          spellcheck={false}
          placeholder={t('map.findPlaceholder')}
          value={text.value}
          onInput={(e) => (text.value = e.currentTarget.value)}
        />
        <button type="submit">{t('map.findGo')}</button>
      </form>
    </div>
  );
}
