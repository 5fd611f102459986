import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get } from '../../api.ts';
import { openAlarms, severityChip } from '../../alarm-watch.ts';
import type { Outcome } from '../../feedback.tsx';
import { errorText, formatTime, hasText, t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import { hrefOf } from '../../router.ts';
import { can } from '../../session.ts';
import type { PlanLocation } from '../../plan/index.ts';
import { actionKey, LockForm, type LockChange } from './lock-form.tsx';
import { RecentEvents } from './recent-events.tsx';
import type * as Wire from '../../../../contract/replies.ts';

// The details of one location beside the plan: its fields as the API has them, the
// transport units on it, its open alarms, its latest events, and (with the grant
// locations:write) locking and unlocking. Read again whenever the plan says the
// location changed (a lock, a PLC state, a unit arriving or leaving).

/** A location as the API sends it. */
type LocationDetails = Wire.Location;

/** A state's chip (styles/tones.css): an error filled as critical, a lock as major. */
const STATE_TONES: Readonly<Record<string, string>> = { error: ' fill-critical', inLocked: ' fill-major', outLocked: ' fill-major', locked: ' fill-major' };

export function LocationPanel({
  id,
  plan,
  onClose,
  onOutcome,
  onChanged,
}: {
  id: string;
  /** The location as the plan draws it; undefined while loading or when it does not exist. */
  plan: PlanLocation | undefined;
  onClose: () => void;
  onOutcome: Outcome;
  onChanged: () => void;
}) {
  const details = useSignal<LocationDetails | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const change = useSignal<LockChange | undefined>(undefined);

  useEffect(() => {
    let current = true;
    get<LocationDetails>('/v1/locations', { locationId: id }).then(
      (r) => {
        if (!current) return;
        details.value = r.body;
        error.value = undefined;
      },
      (err) => {
        if (!current) return;
        error.value = err;
        details.value = undefined;
      },
    );
    return () => {
      current = false;
    };
  }, [id, plan]);
  useEffect(() => {
    change.value = undefined;
  }, [id]);

  const d = details.value?.locationId === id ? details.value : undefined;
  const alarms = can('alarms:read') ? (openAlarms.value ?? []).filter((a) => a.source.kind === 'location' && a.source.key === id) : [];
  const units = plan?.units ?? [];
  return (
    <aside class="map-panel card" aria-labelledby="map-panel-title" data-location={id}>
      <div class="map-panel-head">
        <h2 id="map-panel-title">{id}</h2>
        <button type="button" class="map-close" aria-label={t('map.close')} title={t('map.close')} onClick={onClose}>
          ×
        </button>
      </div>
      {error.value !== undefined && <p class="failure">{errorText(error.value)}</p>}
      {plan && (
        <p class={`map-state s-${plan.state}`}>
          <span class={`chip map-state-chip${STATE_TONES[plan.state] ?? ''}`}>{t(`plan.state.${plan.state}`)}</span>
        </p>
      )}
      {d && (
        <dl class="facts map-facts">
          <Fact name="map.field.group" value={d.locationGroupName} />
          <Fact name="map.field.type" value={d.type} />
          <Fact name="map.field.plcCode" value={d.plcCode ?? undefined} />
          <Fact name="map.field.erpCode" value={d.erpCode} />
          <Fact name="map.field.description" value={d.description} />
          <Fact name="map.field.inbound" value={t(d.incomingActive ? 'map.open' : 'map.locked')} flag={!d.incomingActive} />
          <Fact name="map.field.outbound" value={t(d.outgoingActive ? 'map.open' : 'map.locked')} flag={!d.outgoingActive} />
          <Fact name="map.field.plcState" value={String(d.plcState)} flag={d.plcState !== 0} />
          {plan?.state === 'unavailable' && <Fact name="map.field.groupState" value={t('map.notAvailable')} flag />}
          <Fact name="map.field.lastMovement" value={d.lastMovement ? formatTime(d.lastMovement) : undefined} />
        </dl>
      )}
      {d && can('locations:write') && (
        <LockActions d={d} change={change.value} setChange={(c) => (change.value = c)} onOutcome={onOutcome} onChanged={onChanged} />
      )}
      {alarms.length > 0 && (
        <section aria-labelledby="map-alarms-title">
          <h3 id="map-alarms-title">{t('map.alarms')}</h3>
          <ul class="plain-list map-list">
            {alarms.map((a) => (
              <li key={a.id}>
                <a href={hrefOf('alarms')} class={severityChip(a.severity)}>
                  <Icon name="bell" />
                  {hasText(`alarms.kind.${a.kind}`) ? t(`alarms.kind.${a.kind}`) : a.kind}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="map-units-title">
        <h3 id="map-units-title">{t('map.units')}</h3>
        {units.length === 0 ? (
          <p class="muted">{t('map.noUnits')}</p>
        ) : (
          <ul class="plain-list map-list map-units">
            {units.map((u) => (
              <li key={u}>{u}</li>
            ))}
          </ul>
        )}
      </section>
      {can('events:read') && (
        <section aria-labelledby="map-events-title">
          <h3 id="map-events-title">{t('map.events')}</h3>
          <RecentEvents id={id} version={plan} />
        </section>
      )}
    </aside>
  );
}

function Fact({ name, value, flag }: { name: string; value: string | undefined; flag?: boolean }) {
  if (value === undefined || value === '') return null;
  return (
    <div class={flag ? 'flagged' : undefined}>
      <dt>{t(name)}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function LockActions({
  d,
  change,
  setChange,
  onOutcome,
  onChanged,
}: {
  d: LocationDetails;
  change: LockChange | undefined;
  setChange: (c: LockChange | undefined) => void;
  onOutcome: Outcome;
  onChanged: () => void;
}) {
  if (change) {
    return <LockForm id={d.locationId} pKey={d.pKey} change={change} onOutcome={onOutcome} onClose={() => setChange(undefined)} onDone={onChanged} />;
  }
  const options: LockChange[] = [
    { direction: 'in', lock: d.incomingActive },
    { direction: 'out', lock: d.outgoingActive },
  ];
  return (
    <div class="actions map-lock-actions">
      {options.map((c) => (
        <button key={c.direction} type="button" class={c.lock ? undefined : 'primary'} onClick={() => setChange(c)}>
          {t(actionKey(c))}
        </button>
      ))}
    </div>
  );
}
