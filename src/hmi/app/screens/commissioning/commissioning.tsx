import { useComputed, useSignal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { get } from '../../api.ts';
import { t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import { useLiveList } from '../../lists/list-view.tsx';
import { subscribe } from '../../live.ts';
import { ConveyorPlan, usePlanData, type PlanLink } from '../../plan/index.ts';
import { wallboard } from '../../prefs.ts';
import { hrefOf } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { can } from '../../session.ts';
import { DryRun } from './dry-run.tsx';
import { GroupsPanel } from './groups.tsx';
import { Help } from './help.tsx';
import { HopForm, type DrawnLink } from './hop-form.tsx';
import { GROUP_EVENTS, groupList, ROUTE_EVENTS, routeList } from './lists.ts';
import { BulkLocations, NewLocation } from './locations.tsx';
import { Outcome } from './outcome.tsx';
import { NewRoute } from './route-form.tsx';
import { RoutesPanel } from './routes-panel.tsx';
import type { Decision, Hop } from './topology.ts';

// The commissioning screen (docs/hmi.md, docs/commissioning.md): the conveyor plan
// beside the integrator's panels. `#/commissioning` groups and locations,
// `#/commissioning/routes` routes, their hops (drawn on the plan) and the dry run of
// the routing decision, `#/commissioning/help` the steps from an empty box to a unit
// moving over three hops on the simulator.

type View = 'layout' | 'routes' | 'help';
const enc = encodeURIComponent;

export default function CommissioningScreen({ rest }: ScreenProps) {
  const view: View = rest === 'help' ? 'help' : rest === 'routes' ? 'routes' : 'layout';
  return (
    <section class="screen commissioning" aria-labelledby="cm-title">
      <div class="screen-head">
        <h1 id="cm-title">{t('commissioning.title')}</h1>
        {!wallboard.value && (
          <nav class="tabs" aria-label={t('commissioning.views')}>
            <a href={hrefOf('commissioning')} aria-current={view === 'layout' ? 'page' : undefined}>
              {t('commissioning.view.layout')}
            </a>
            <a href={hrefOf('commissioning', 'routes')} aria-current={view === 'routes' ? 'page' : undefined}>
              {t('commissioning.view.routes')}
            </a>
            <a href={hrefOf('commissioning', 'help')} aria-current={view === 'help' ? 'page' : undefined} class="cm-help-link">
              <Icon name="commissioning" />
              {t('commissioning.view.help')}
            </a>
          </nav>
        )}
      </div>
      {view === 'help' ? <Help /> : <Workbench view={view} />}
      <Outcome />
    </section>
  );
}

function Workbench({ view }: { view: Exclude<View, 'help'> }) {
  const plan = usePlanData();
  const selected = useSignal<string | undefined>(undefined);
  const group = useSignal('');
  const drawn = useSignal<DrawnLink | undefined>(undefined);
  const chosenRoute = useSignal<string | undefined>(undefined);
  const routeHops = useSignal<Hop[] | undefined>(undefined);
  const dryLink = useSignal<PlanLink | undefined>(undefined);

  const groups = useMemo(groupList, []);
  useLiveList(groups, GROUP_EVENTS);
  const routes = useMemo(routeList, []);
  useLiveList(routes, ROUTE_EVENTS, (e) => e.data.key);

  // The chosen route's hops, read when it is chosen and again when anyone replaces them.
  const readHops = async (key: string) => {
    try {
      const hops = (await get<Hop[]>(`/v1/api/routes/${enc(key)}/hops`)).body;
      if (chosenRoute.value === key) routeHops.value = hops;
    } catch {
      if (chosenRoute.value === key) routeHops.value = [];
    }
  };
  useEffect(() => {
    routeHops.value = undefined;
    const key = chosenRoute.value;
    if (!key) return;
    void readHops(key);
    return subscribe(
      ['route.hopsReplaced'],
      (e) => e.data.key === key && void readHops(key),
      () => void readHops(key),
    );
  }, [chosenRoute.value]);

  const names = useComputed(() => [...new Set([...plan.groups.value, ...(groups.items.value ?? []).map((g) => g.name)])].sort());

  const route = routes.items.value?.find((r) => r.key === chosenRoute.value);

  // The chosen route's hops and the dry run's answer stand out on the plan. Hops the
  // plan has not read yet (it follows the same events) are drawn from the route's list.
  const links = ((): PlanLink[] => {
    const name = route?.name;
    const dry = dryLink.value;
    const marked = (l: PlanLink) =>
      (l.kind === 'hop' && name !== undefined && l.route === name) || (dry !== undefined && l.from === dry.from && l.to === dry.to);
    const known = plan.links.value.map((l) => (marked(l) ? { ...l, highlighted: true } : l));
    const has = (from: string, to: string) => known.some((l) => l.from === from && l.to === to);
    const extra: PlanLink[] = (routeHops.value ?? [])
      .filter((h) => !has(h.source, h.next))
      .map((h) => ({ from: h.source, to: h.next, kind: 'hop', highlighted: true, ...(name ? { route: name } : {}) }));
    if (dry && !has(dry.from, dry.to)) extra.push({ ...dry, highlighted: true });
    return [...known, ...extra];
  })();

  const drawing = can('routes:write') && !wallboard.value;
  const here = plan.locations.value.find((l) => l.id === selected.value);

  const onAnswer = (location: string, d: Decision | undefined) => {
    dryLink.value = d?.nextLocation ? { from: location, to: d.nextLocation, kind: d.via === 'ROUTE' ? 'hop' : 'default-hop' } : undefined;
  };

  return (
    <div class="cm-bench">
      <div class="cm-plan-area">
        <div class="cm-plan-tools">
          <label for="cm-plan-group">{t('commissioning.plan.group')}</label>
          <select id="cm-plan-group" value={group.value} onChange={(e) => (group.value = e.currentTarget.value)}>
            <option value="">{t('commissioning.plan.allGroups')}</option>
            {names.value.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <p class="cm-selected" aria-live="polite">
            {here
              ? t('commissioning.plan.selected', {
                  location: here.id,
                  group: here.group ?? '–',
                  units: here.units?.length ? here.units.join(', ') : t('commissioning.plan.noUnits'),
                })
              : plan.loading.value
                ? t('screen.loading')
                : t(drawing ? 'commissioning.plan.hintDraw' : 'commissioning.plan.hint')}
          </p>
        </div>
        <div class="cm-plan">
          <ConveyorPlan
            locations={plan.locations.value}
            links={links}
            selected={selected.value}
            viewKey={group.value}
            place="commissioning"
            onSelect={(id) => (selected.value = id)}
            {...(drawing ? { onLinkDrawn: (from: string, to: string) => (drawn.value = { from, to }) } : {})}
            {...(group.value ? { group: group.value } : {})}
          />
        </div>
      </div>
      <div class="cm-side">
        {drawn.value && drawing && (
          <HopForm
            link={drawn.value}
            routes={routes.items.value ?? []}
            chosen={chosenRoute.value}
            onClose={() => (drawn.value = undefined)}
            onAdded={(key) => {
              // A route newly chosen reads its hops by itself; the one shown already is read again.
              const shown = key !== undefined && key === chosenRoute.value;
              if (key) chosenRoute.value = key;
              if (shown) void readHops(key);
              plan.reload();
            }}
          />
        )}
        {view === 'layout' ? (
          <>
            <GroupsPanel groups={groups} names={names.value} />
            {can('locations:write') && !wallboard.value && (
              <section class="card cm-panel" aria-labelledby="cm-locations-title">
                <h2 id="cm-locations-title">{t('commissioning.locations.title')}</h2>
                <BulkLocations names={names.value} />
                <NewLocation names={names.value} />
              </section>
            )}
          </>
        ) : (
          <>
            <RoutesPanel routes={routes} chosen={chosenRoute} hops={routeHops} />
            {!wallboard.value && (
              <DryRun
                selectedLocation={selected.value}
                unitsAt={(id) => plan.locations.value.find((l) => l.id === id)?.units ?? []}
                route={route}
                onAnswer={onAnswer}
              />
            )}
            {drawing && (
              <NewRoute
                names={names.value}
                selectedLocation={selected.value}
                onCreated={(r) => {
                  void routes.reload();
                  chosenRoute.value = r.key;
                }}
              />
            )}
          </>
        )}
      </div>
    </div>
  );
}
