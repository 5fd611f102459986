import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get } from '../../api.ts';
import { FormError } from '../../feedback.tsx';
import { errorText, t } from '../../i18n.ts';
import type { Decision, RouteInfo } from './topology.ts';

// The dry run: "a unit with this order standing here would go to …". It asks the
// appliance's own routing decision (`GET /v1/api/routes/decision?location=&barcode=`,
// docs/routing.md), the same answer a PLC's REQ_ would get, and says it in words. Only
// enabled routes take part in that decision: for the disabled route chosen on the plan
// it also asks the decision as if that route were enabled (`&assumeEnabled=<key>`), so
// the route can be checked before it is enabled.

interface DryRunProps {
  selectedLocation: string | undefined;
  /** Barcodes of the units standing at each location (the plan's), offered for the barcode. */
  unitsAt: (location: string) => readonly string[];
  route: RouteInfo | undefined;
  onAnswer: (location: string, decision: Decision | undefined) => void;
}

export function DryRun({ selectedLocation, unitsAt, route, onAnswer }: DryRunProps) {
  const location = useSignal(selectedLocation ?? '');
  const barcode = useSignal('');
  const busy = useSignal(false);
  const answer = useSignal<{ location: string; barcode: string; decision: Decision; onceEnabled?: Decision } | undefined>(undefined);
  const error = useSignal('');

  // A location chosen on the plan is where the unit stands.
  useEffect(() => {
    if (selectedLocation) location.value = selectedLocation;
  }, [selectedLocation]);

  const ask = async (e: Event) => {
    e.preventDefault();
    busy.value = true;
    error.value = '';
    const at = location.value.trim();
    const code = barcode.value.trim();
    try {
      const query = { location: at, ...(code ? { barcode: code } : {}) };
      const decision = (await get<Decision>('/v1/api/routes/decision', query)).body;
      const onceEnabled = route && !route.enabled ? (await get<Decision>('/v1/api/routes/decision', { ...query, assumeEnabled: route.key })).body : undefined;
      answer.value = { location: at, barcode: code, decision, ...(onceEnabled ? { onceEnabled } : {}) };
      onAnswer(at, decision);
    } catch (err) {
      answer.value = undefined;
      error.value = errorText(err);
      onAnswer(at, undefined);
    } finally {
      busy.value = false;
    }
  };

  const units = unitsAt(location.value.trim());
  const a = answer.value;
  return (
    <section class="card cm-panel cm-dry-run" aria-labelledby="cm-dry-title">
      <h2 id="cm-dry-title">{t('commissioning.dry.title')}</h2>
      <p class="cm-hint">{t('commissioning.dry.hint')}</p>
      <form class="cm-form" onSubmit={ask}>
        <label for="cm-dry-location">{t('commissioning.dry.location')}</label>
        <input
          id="cm-dry-location"
          required
          spellcheck={false}
          autocapitalize="characters"
          value={location.value}
          onInput={(e) => (location.value = e.currentTarget.value)}
        />
        <label for="cm-dry-barcode">{t('commissioning.dry.barcode')}</label>
        <input
          id="cm-dry-barcode"
          list="cm-dry-units"
          spellcheck={false}
          maxLength={64}
          value={barcode.value}
          onInput={(e) => (barcode.value = e.currentTarget.value)}
        />
        <datalist id="cm-dry-units">
          {units.map((u) => (
            <option key={u} value={u} />
          ))}
        </datalist>
        <button type="submit" class="primary" disabled={busy.value}>
          {t('commissioning.dry.ask')}
        </button>
      </form>
      <div role="status" class="cm-answer" data-result={a?.decision.result} data-next={a?.decision.nextLocation}>
        {a && <p>{decisionText(a.location, a.barcode, a.decision)}</p>}
        {a?.onceEnabled && route && (
          <p class="notice" data-once-enabled-next={a.onceEnabled.nextLocation ?? ''} data-once-enabled-result={a.onceEnabled.result}>
            {t('commissioning.dry.onceEnabled', { name: route.name, answer: decisionText(a.location, a.barcode, a.onceEnabled) })}
          </p>
        )}
      </div>
      <FormError message={error.value} />
    </section>
  );
}

/** The decision in a sentence: who stands where, and where it goes or why it stays. */
function decisionText(location: string, barcode: string, d: Decision): string {
  const target = d.order?.targetLocation ?? d.order?.targetLocationGroup;
  const who = !barcode
    ? t('commissioning.dry.who.noUnit')
    : target
      ? t('commissioning.dry.who.order', { barcode, target })
      : t('commissioning.dry.who.noOrder', { barcode });
  const p = { who, location, next: d.nextLocation ?? '', route: d.route?.name ?? '', candidates: (d.candidates ?? []).join(', ') };
  switch (d.result) {
    case 'NEXT':
      return t(d.via === 'ROUTE' ? 'commissioning.dry.next.route' : d.route ? 'commissioning.dry.next.defaultAfterRoute' : 'commissioning.dry.next.default', p);
    case 'ARRIVED':
      return t('commissioning.dry.arrived', p);
    case 'NO_ORDER':
      return t('commissioning.dry.noOrder', p);
    case 'NO_ROUTE':
      return t(d.route ? 'commissioning.dry.noRoute.route' : 'commissioning.dry.noRoute', p);
    case 'LOCKED':
      return t(d.lock === 'SOURCE_OUTGOING_LOCKED' ? 'commissioning.dry.locked.source' : 'commissioning.dry.locked.next', p);
    default:
      return t('commissioning.dry.unknown', p);
  }
}
