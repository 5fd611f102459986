import { useSignal, type Signal } from '@preact/signals';
import { ApiFailure, post, request } from '../../api.ts';
import { errorText, t } from '../../i18n.ts';
import { ListView } from '../../lists/list-view.tsx';
import type { LiveList } from '../../lists/live-list.ts';
import { wallboard } from '../../prefs.ts';
import { can } from '../../session.ts';
import { done, failed } from './outcome.tsx';
import { routeSource, routeTarget, type Hop, type RouteInfo } from './topology.ts';

// The routes: each with its ends and whether it takes part in routing; one is chosen
// to be shown on the plan with its hops, which are added by drawing on the plan and
// removed here. Enabling and disabling and removing a hop need the grant routes:write.

const enc = encodeURIComponent;

interface RoutesPanelProps {
  routes: LiveList<RouteInfo>;
  /** Key of the route shown on the plan. */
  chosen: Signal<string | undefined>;
  /** Its hops, as last read; undefined while reading. */
  hops: Signal<Hop[] | undefined>;
}

export function RoutesPanel({ routes, chosen, hops }: RoutesPanelProps) {
  const writer = can('routes:write') && !wallboard.value;
  const route = routes.items.value?.find((r) => r.key === chosen.value);
  return (
    <section class="card cm-panel" aria-labelledby="cm-routes-title">
      <h2 id="cm-routes-title">{t('commissioning.routes.title')}</h2>
      <ListView
        list={routes}
        listClass="cm-list cm-routes"
        labelledBy="cm-routes-title"
        empty={<p class="empty">{t('commissioning.routes.none')}</p>}
        item={(r) => (
          <RouteRow
            key={r.key}
            route={r}
            chosen={chosen.value === r.key}
            writer={writer}
            onChoose={() => (chosen.value = chosen.value === r.key ? undefined : r.key)}
          />
        )}
      />
      {route && <RouteHops route={route} hops={hops} writer={writer} />}
    </section>
  );
}

function RouteRow({ route, chosen, writer, onChoose }: { route: RouteInfo; chosen: boolean; writer: boolean; onChoose: () => void }) {
  const busy = useSignal(false);
  const toggle = async () => {
    busy.value = true;
    try {
      await post(`/v1/api/routes/${enc(route.key)}/${route.enabled ? 'disable' : 'enable'}`);
      done(t(route.enabled ? 'commissioning.routes.disabledDone' : 'commissioning.routes.enabledDone', { name: route.name }));
    } catch (err) {
      // Enabling is refused as `already.exists` when an enabled twin has the same ends.
      failed(err instanceof ApiFailure && err.messageKey === 'already.exists' ? t('commissioning.routes.twin', { name: route.name }) : errorText(err));
    } finally {
      busy.value = false;
    }
  };
  const source = routeSource(route);
  return (
    <li class={chosen ? 'chosen' : undefined} data-route={route.key} data-enabled={String(route.enabled)}>
      <button type="button" class="cm-route-name" aria-pressed={chosen} onClick={onChoose}>
        {route.name}
      </button>
      <span class="cm-ends">
        {source ?? t('commissioning.routes.anywhere')} → {routeTarget(route)}
      </span>
      <span class={`chip state-chip${route.enabled ? ' frame-text' : ''}`}>
        {t(route.enabled ? 'commissioning.routes.enabled' : 'commissioning.routes.disabled')}
      </span>
      {writer && (
        <button type="button" disabled={busy.value} onClick={() => void toggle()}>
          {t(route.enabled ? 'commissioning.routes.disable' : 'commissioning.routes.enable')}
        </button>
      )}
    </li>
  );
}

function RouteHops({ route, hops, writer }: { route: RouteInfo; hops: Signal<Hop[] | undefined>; writer: boolean }) {
  const busy = useSignal(false);
  const remove = async (index: number) => {
    const list = hops.value;
    if (!list) return;
    busy.value = true;
    try {
      const kept = list.filter((_, i) => i !== index).map(({ source, next }) => ({ source, next }));
      hops.value = (await request<Hop[]>('PUT', `/v1/api/routes/${enc(route.key)}/hops`, { body: kept })).body;
      done(t('commissioning.hops.removed'));
    } catch (err) {
      failed(errorText(err));
    } finally {
      busy.value = false;
    }
  };
  const list = hops.value;
  // The first hop of a source is its first choice; the others are its alternatives.
  const seen = new Set<string>();
  return (
    <div class="cm-hops" aria-labelledby="cm-hops-title" role="group">
      <h3 id="cm-hops-title">{t('commissioning.hops.of', { name: route.name })}</h3>
      {writer && <p class="cm-hint">{t('commissioning.hops.drawHint')}</p>}
      {list === undefined ? (
        <p class="empty">{t('screen.loading')}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('commissioning.hops.none')}</p>
      ) : (
        <ol class="plain-list cm-list">
          {list.map((h, i) => {
            const alternative = seen.has(h.source);
            seen.add(h.source);
            return (
              <li key={`${h.source}>${h.next}`} data-hop={`${h.source}>${h.next}`}>
                <span>
                  {h.source} → <strong>{h.next}</strong>
                  {alternative && <span class="muted"> ({t('commissioning.hops.alternative')})</span>}
                </span>
                {writer && (
                  <button
                    type="button"
                    disabled={busy.value}
                    aria-label={t('commissioning.hops.remove', { from: h.source, to: h.next })}
                    onClick={() => void remove(i)}
                  >
                    {t('commissioning.hops.removeShort')}
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
