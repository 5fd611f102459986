import { useSignal } from '@preact/signals';
import { useEffect, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { now } from '../../clock.ts';
import { Failure } from '../../feedback.tsx';
import { formatAge, formatTime, hasText, plural, t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import { subscribe } from '../../live.ts';
import { wallboard } from '../../prefs.ts';
import { decodePart, hrefOf } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { can } from '../../session.ts';
import { breakable } from '../orders/breakable.tsx';
import { isEnded, priorityChip, priorityText, stateChip, stateText, targetText, type TransportOrder } from '../orders/order.ts';
import { CreateUnit } from './create-unit.tsx';
import { TraceItem } from './trace-entry.tsx';
import { answeredRequests } from './trace.ts';
import { UNIT_EVENTS, UnitView, type Location, type TransportUnit } from './unit.ts';

// Unit search and trace (docs/hmi.md): a barcode typed or scanned (a keyboard-wedge
// scanner types it and presses Enter) opens `#/units/<barcode>`, so other screens link
// to a unit; it shows where the unit stands, its transport orders and its trace, newest
// first, live.

/** Unit states that hold a unit back: their chip is framed as a fault. */
const UNIT_FAULTS: readonly string[] = ['BLOCKED', 'QUALITY_CHECK'];

export default function UnitsScreen({ rest }: ScreenProps) {
  const barcode = decodePart(rest).trim();
  const typed = useSignal(barcode);
  const field = useRef<HTMLInputElement>(null);
  /** Asking for the same barcode again reads it afresh. */
  const asked = useSignal(0);

  useLayoutEffect(() => {
    typed.value = barcode;
    // Selected: the next scan replaces it.
    field.current?.focus();
    field.current?.select();
  }, [barcode, asked.value]);

  const search = (e: Event) => {
    e.preventDefault();
    const wanted = typed.value.trim();
    if (!wanted) return;
    if (wanted === barcode) asked.value++;
    else location.hash = hrefOf('units', encodeURIComponent(wanted));
  };

  return (
    <section class="screen units" aria-labelledby="units-title">
      <div class="screen-head">
        <h1 id="units-title">{t('units.title')}</h1>
      </div>
      {!wallboard.value && (
        <form class="unit-search" role="search" onSubmit={search}>
          <label for="unit-barcode">{t('units.barcode')}</label>
          <div class="field-row unit-search-row">
            <input
              id="unit-barcode"
              ref={field}
              value={typed.value}
              autoComplete="off"
              autoCapitalize="off"
              spellcheck={false}
              enterKeyHint="search"
              aria-describedby="unit-barcode-hint"
              onInput={(e) => (typed.value = e.currentTarget.value)}
            />
            <button type="submit" class="primary">
              <Icon name="search" />
              <span>{t('units.search')}</span>
            </button>
          </div>
          <p id="unit-barcode-hint" class="muted">
            {t('units.barcodeHint')}
          </p>
        </form>
      )}
      {barcode ? <UnitDetails key={`${barcode}:${asked.value}`} barcode={barcode} /> : <p class="empty">{t('units.none')}</p>}
    </section>
  );
}

function UnitDetails({ barcode }: { barcode: string }) {
  const view = useMemo(() => new UnitView(barcode), [barcode]);
  useEffect(() => {
    view.load();
    const unsubscribe = subscribe(UNIT_EVENTS, view.onEvent, view.load);
    return () => {
      unsubscribe();
      view.stop();
    };
  }, [view]);

  const unit = view.unit.value;
  const entries = view.trace.entries.value;
  if (unit === undefined || entries === undefined) {
    const failed = view.error.value ?? view.trace.error.value;
    return failed !== undefined ? <Failure error={failed} retry={view.load} /> : <p class="empty">{t('screen.loading')}</p>;
  }
  // No unit has the barcode (now): a user who may create units is offered one with it.
  const creatable = unit === null && can('transport-units:write') && !wallboard.value;
  if (unit === null && entries.length === 0) {
    return (
      <>
        <p class="unit-unknown failure" role="alert">
          <Icon name="warning" />
          <span>{t('units.unknown', { barcode })}</span>
        </p>
        {creatable && <CreateUnit barcode={barcode} onCreated={view.load} />}
      </>
    );
  }
  return (
    <>
      {view.error.value !== undefined && <Failure error={view.error.value} retry={view.load} />}
      {unit === null ? (
        <p class="unit-gone notice" role="status">
          {t('units.gone', { barcode })}
        </p>
      ) : (
        <UnitPlace unit={unit} location={view.location.value} />
      )}
      {can('transport-orders:read') && <UnitOrders barcode={barcode} orders={view.orders.value} exists={unit !== null} />}
      <Timeline view={view} />
      {creatable && <CreateUnit barcode={barcode} onCreated={view.load} />}
    </>
  );
}

/** Where the unit stands, since when, and what holds it or its location. */
function UnitPlace({ unit, location }: { unit: TransportUnit; location: Location | undefined }) {
  const locks: string[] = [];
  if (location && !location.incomingActive) locks.push(t('units.lockedIn'));
  if (location && !location.outgoingActive) locks.push(t('units.lockedOut'));
  if (location && location.plcState > 0) locks.push(t('units.plcError', { code: location.plcState }));
  return (
    <section class="unit-place card" aria-labelledby="unit-place-title">
      <h2 id="unit-place-title">{t('units.unit', { barcode: unit.barcode })}</h2>
      <dl class="facts">
        <div>
          <dt>{t('units.location')}</dt>
          <dd>
            <strong class="unit-location">{breakable(unit.actualLocation)}</strong>
            {location && <span class="muted"> · {t('units.group', { group: location.locationGroupName })}</span>}
          </dd>
        </div>
        <div>
          <dt>{t('units.since')}</dt>
          <dd>
            <time dateTime={unit.actualLocationDate}>{formatTime(unit.actualLocationDate)}</time> ({formatAge(unit.actualLocationDate, now.value)})
          </dd>
        </div>
        <div>
          <dt>{t('units.state')}</dt>
          <dd>
            <span class={`chip state-chip${UNIT_FAULTS.includes(unit.state) ? ' frame-danger' : ''}`}>
              {hasText(`units.unitState.${unit.state}`) ? t(`units.unitState.${unit.state}`) : unit.state}
            </span>
          </dd>
        </div>
        {location && (
          <div>
            <dt>{t('units.locationState')}</dt>
            <dd class={`unit-location-state${locks.length ? ' trace-problem' : ''}`}>{locks.length ? locks.join(' · ') : t('units.locationOk')}</dd>
          </div>
        )}
        <div>
          <dt>{t('units.type')}</dt>
          <dd>{unit.transportUnitType}</dd>
        </div>
      </dl>
    </section>
  );
}

/** The unit's orders: the open ones first, then the ended, the latest first. */
function UnitOrders({ barcode, orders, exists }: { barcode: string; orders: readonly TransportOrder[] | undefined; exists: boolean }) {
  const sorted = [...(orders ?? [])].sort((a, b) => Number(isEnded(a.state)) - Number(isEnded(b.state)) || b.createDt.localeCompare(a.createDt));
  return (
    <section class="unit-orders" aria-labelledby="unit-orders-title">
      <div class="section-head">
        <h2 id="unit-orders-title">{t('units.orders')}</h2>
        {exists && can('transport-orders:write') && !wallboard.value && (
          <a class="button" href={hrefOf('orders', `new/${encodeURIComponent(barcode)}`)}>
            {t('units.newOrder')}
          </a>
        )}
      </div>
      {orders === undefined ? (
        <p class="empty">{t('screen.loading')}</p>
      ) : sorted.length === 0 ? (
        <p class="empty">{t('units.noOrders')}</p>
      ) : (
        <ul class="plain-list unit-order-list">
          {sorted.map((o) => (
            <li key={o.persistentKey} class="framed unit-order" data-order={o.persistentKey} data-state={o.state}>
              <span class={stateChip(o.state)}>{stateText(o.state)}</span>
              <span class={priorityChip(o.priority)}>{priorityText(o.priority)}</span>
              <span class="unit-order-path">
                {breakable(o.sourceLocation)} <span aria-hidden="true">→</span>
                <span class="visually-hidden">{t('orders.to')}</span> {breakable(targetText(o.targetLocation, o.targetLocationGroup))}
              </span>
              <time class="muted" dateTime={o.createDt}>
                {formatTime(o.createDt)}
              </time>
              {o.message && <span class="order-message">{o.message}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Timeline({ view }: { view: UnitView }) {
  const entries = view.trace.entries.value ?? [];
  const count = view.trace.shown.value;
  const shown = entries.slice(-count).reverse();
  const answered = answeredRequests(entries);
  return (
    <section class="unit-trace" aria-labelledby="unit-trace-title">
      <h2 id="unit-trace-title">{t('units.trace')}</h2>
      {view.trace.error.value !== undefined && <Failure error={view.trace.error.value} retry={() => void view.trace.refresh()} />}
      {shown.length === 0 ? (
        <p class="empty">{t('units.noTrace')}</p>
      ) : (
        <ol class="plain-list framed trace" aria-labelledby="unit-trace-title">
          {shown.map((e) => (
            <TraceItem key={`${e.source}-${e.id}`} entry={e} request={answered.get(e)} />
          ))}
        </ol>
      )}
      {entries.length > count && !wallboard.value && (
        <button type="button" class="more" onClick={() => view.trace.older()}>
          {plural('units.older', entries.length - count)}
        </button>
      )}
    </section>
  );
}
