import { useSignal } from '@preact/signals';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { get, request } from '../../api.ts';
import { FormActions, FormError } from '../../feedback.tsx';
import { errorText, t } from '../../i18n.ts';
import { done } from './outcome.tsx';
import { defaultHopTwice, hopProblem, type DefaultHop, type Hop, type RouteInfo } from './topology.ts';

// A link drawn on the plan from one location to another becomes a hop: added to a
// route's hops (units with a transport order along that route) or to the default hop
// table (units without an order). The API replaces a hop list as a whole, so the list
// is read afresh, the hop appended, checked as the appliance would check it, and sent.

const enc = encodeURIComponent;
const DEFAULT = '';

export interface DrawnLink {
  from: string;
  to: string;
}

export function HopForm({
  link,
  routes,
  chosen,
  onClose,
  onAdded,
}: {
  link: DrawnLink;
  routes: readonly RouteInfo[];
  chosen: string | undefined;
  onClose: () => void;
  onAdded: (routeKey: string | undefined) => void;
}) {
  const target = useSignal<string>(chosen ?? routes[0]?.key ?? DEFAULT);
  const busy = useSignal(false);
  const error = useSignal('');
  const heading = useRef<HTMLHeadingElement>(null);
  // The form appears away from where the link was drawn: the focus goes to it.
  useLayoutEffect(() => heading.current?.focus(), [link.from, link.to]);

  const submit = async (e: Event) => {
    e.preventDefault();
    busy.value = true;
    error.value = '';
    const added = { source: link.from, next: link.to };
    try {
      if (target.value === DEFAULT) {
        const table = (await get<DefaultHop[]>('/v1/api/default-hops')).body;
        if (link.from === link.to) throw t('commissioning.hop.self');
        if (defaultHopTwice(table, link.from, link.to)) throw t('commissioning.hop.twice');
        await request('PUT', '/v1/api/default-hops', { body: [...table.map(({ pos: _, ...h }) => h), added] });
        done(t('commissioning.hops.addedDefault', { from: link.from, to: link.to }));
        onAdded(undefined);
      } else {
        const path = `/v1/api/routes/${enc(target.value)}/hops`;
        const hops = (await get<Hop[]>(path)).body;
        const problem = hopProblem(hops, added);
        if (problem) throw t(problem.key, problem.key === 'commissioning.hop.circle' ? { circle: problem.circle.join(' → ') } : {});
        await request('PUT', path, { body: [...hops.map(({ source, next }) => ({ source, next })), added] });
        const name = routes.find((r) => r.key === target.value)?.name ?? target.value;
        done(t('commissioning.hops.added', { from: link.from, to: link.to, name }));
        onAdded(target.value);
      }
      onClose();
    } catch (err) {
      error.value = typeof err === 'string' ? err : errorText(err);
    } finally {
      busy.value = false;
    }
  };

  return (
    <form class="cm-form cm-hop-form card" onSubmit={submit} aria-labelledby="cm-hop-title">
      <h3 id="cm-hop-title" tabIndex={-1} ref={heading}>
        {t('commissioning.hops.newTitle')}
      </h3>
      <p class="cm-link">
        <strong>{link.from}</strong> → <strong>{link.to}</strong>
      </p>
      <label for="cm-hop-target">{t('commissioning.hops.addTo')}</label>
      <select id="cm-hop-target" value={target.value} onChange={(e) => (target.value = e.currentTarget.value)}>
        {routes.map((r) => (
          <option key={r.key} value={r.key}>
            {t('commissioning.hops.toRoute', { name: r.name })}
          </option>
        ))}
        <option value={DEFAULT}>{t('commissioning.hops.toDefault')}</option>
      </select>
      <FormError message={error.value} />
      <FormActions send={t('commissioning.hops.add')} back={t('action.cancel')} busy={busy.value} onBack={onClose} />
    </form>
  );
}
