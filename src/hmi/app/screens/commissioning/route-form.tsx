import { useSignal } from '@preact/signals';
import { ApiFailure, get, post } from '../../api.ts';
import { FormError } from '../../feedback.tsx';
import { errorText, t } from '../../i18n.ts';
import { GroupSelect } from './locations.tsx';
import { done } from './outcome.tsx';
import type { RouteInfo } from './topology.ts';

// A new route (grant routes:write): a name, where from (a location, a group, or from
// anywhere) and where to (a location or a group); the hops are drawn on the plan
// afterwards. It is created disabled unless asked otherwise, so that its hops can be
// drawn and the dry run asked before it steers real units (docs/routing.md).

type EndKind = 'anywhere' | 'location' | 'group';

interface EndProps {
  id: string;
  legend: string;
  kinds: readonly EndKind[];
  kind: EndKind;
  value: string;
  names: readonly string[];
  selectedLocation: string | undefined;
  onKind: (k: EndKind) => void;
  onValue: (v: string) => void;
}

function End({ id, legend, kinds, kind, value, names, selectedLocation, onKind, onValue }: EndProps) {
  return (
    <fieldset class="cm-end">
      <legend>{legend}</legend>
      <label for={`${id}-kind`} class="visually-hidden">
        {t('commissioning.routes.endKind', { end: legend })}
      </label>
      <select id={`${id}-kind`} value={kind} onChange={(e) => onKind(e.currentTarget.value as EndKind)}>
        {kinds.map((k) => (
          <option key={k} value={k}>
            {t(`commissioning.routes.kind.${k}`)}
          </option>
        ))}
      </select>
      {kind === 'location' && (
        <>
          <label for={`${id}-location`}>{t('commissioning.routes.location', { end: legend })}</label>
          <div class="field-row cm-inline">
            <input
              id={`${id}-location`}
              required
              spellcheck={false}
              autocapitalize="characters"
              value={value}
              onInput={(e) => onValue(e.currentTarget.value)}
            />
            <button type="button" disabled={!selectedLocation} onClick={() => selectedLocation && onValue(selectedLocation)}>
              {t('commissioning.routes.useSelected')}
            </button>
          </div>
        </>
      )}
      {kind === 'group' && (
        <>
          <label for={`${id}-group`}>{t('commissioning.routes.group', { end: legend })}</label>
          <GroupSelect id={`${id}-group`} names={names} value={value} onChange={onValue} />
        </>
      )}
    </fieldset>
  );
}

/**
 * A route refused as existing: its name taken, or an enabled route with the same ends
 * (the appliance checks the name first and names neither in its answer). Which one is
 * read from the routes as they are now.
 */
async function clashText(wanted: Omit<RouteInfo, 'key' | 'ol'>): Promise<string> {
  const ENDS = ['sourceLocationName', 'sourceLocationGroupName', 'targetLocationName', 'targetLocationGroupName'] as const;
  try {
    const routes = (await get<RouteInfo[]>('/v1/api/routes')).body;
    if (routes.some((r) => r.name === wanted.name)) return t('commissioning.routes.exists', { name: wanted.name });
    const twin = routes.find((r) => r.enabled && ENDS.every((end) => (r[end] ?? null) === (wanted[end] ?? null)));
    if (twin) return t('commissioning.routes.sameEnds', { name: twin.name });
  } catch {
    // Not readable now: said without naming which.
  }
  return t('commissioning.routes.existsUntold');
}

export function NewRoute({
  names,
  selectedLocation,
  onCreated,
}: {
  names: readonly string[];
  selectedLocation: string | undefined;
  onCreated: (route: RouteInfo) => void;
}) {
  const name = useSignal('');
  const sourceKind = useSignal<EndKind>('location');
  const source = useSignal('');
  const targetKind = useSignal<EndKind>('location');
  const target = useSignal('');
  const enabled = useSignal(false);
  const busy = useSignal(false);
  const error = useSignal('');

  const submit = async (e: Event) => {
    e.preventDefault();
    busy.value = true;
    error.value = '';
    const end = (kind: EndKind, value: string, location: string, group: string) =>
      kind === 'location' ? { [location]: value.trim() } : kind === 'group' ? { [group]: value } : {};
    const wanted: Omit<RouteInfo, 'key' | 'ol'> = {
      name: name.value.trim(),
      ...end(sourceKind.value, source.value, 'sourceLocationName', 'sourceLocationGroupName'),
      ...end(targetKind.value, target.value, 'targetLocationName', 'targetLocationGroupName'),
      enabled: enabled.value,
    };
    try {
      const route = (await post<RouteInfo>('/v1/api/routes', wanted)).body;
      done(t('commissioning.routes.created', { name: route.name }));
      name.value = '';
      source.value = '';
      target.value = '';
      onCreated(route);
    } catch (err) {
      error.value = err instanceof ApiFailure && err.messageKey === 'already.exists' ? await clashText(wanted) : errorText(err);
    } finally {
      busy.value = false;
    }
  };

  const common = { names, selectedLocation };
  return (
    <form class="card cm-panel cm-form" onSubmit={submit} aria-labelledby="cm-route-new-title">
      <h2 id="cm-route-new-title">{t('commissioning.routes.new')}</h2>
      <label for="cm-route-name">{t('commissioning.routes.name')}</label>
      <input id="cm-route-name" required maxLength={255} value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
      <End
        id="cm-route-source"
        legend={t('commissioning.routes.from')}
        kinds={['location', 'group', 'anywhere']}
        kind={sourceKind.value}
        value={source.value}
        onKind={(k) => ((sourceKind.value = k), (source.value = ''))}
        onValue={(v) => (source.value = v)}
        {...common}
      />
      <End
        id="cm-route-target"
        legend={t('commissioning.routes.to')}
        kinds={['location', 'group']}
        kind={targetKind.value}
        value={target.value}
        onKind={(k) => ((targetKind.value = k), (target.value = ''))}
        onValue={(v) => (target.value = v)}
        {...common}
      />
      <label class="cm-check">
        <input type="checkbox" checked={enabled.value} onChange={(e) => (enabled.value = e.currentTarget.checked)} />
        {t('commissioning.routes.enableNow')}
      </label>
      <FormError message={error.value} />
      <button type="submit" class="primary" disabled={busy.value}>
        {t('commissioning.routes.create')}
      </button>
    </form>
  );
}
