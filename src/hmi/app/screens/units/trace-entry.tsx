import { formatTime, hasText, language, plural, t } from '../../i18n.ts';
import { breakable } from '../orders/breakable.tsx';
import { priorityText, stateText, targetText } from '../orders/order.ts';
import type { LiveEvent } from '../../live.ts';
import type { EventEntry, TelegramEntry, TraceEntry } from './trace.ts';

// One entry of a unit's trace in words an operator reads: what happened, where, by
// whom, when. Events by their type and data (src/core/event-catalogue.ts), telegrams by
// type, direction, location, outcome and, for an answer, its latency.

type EntryKind = 'move' | 'telegram' | 'order' | 'lock' | 'stock' | 'movement' | 'unit';

interface Told {
  kind: EntryKind;
  text: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '–' : String(v));
const unitState = (s: unknown) => (hasText(`units.unitState.${str(s)}`) ? t(`units.unitState.${str(s)}`) : str(s));

/** An order's target as the events of transport orders state it. */
const target = (d: { targetLocation: string | null; targetLocationGroup: string | null }) => targetText(d.targetLocation, d.targetLocationGroup);

// Each case reads the data its type carries (the event catalogue, src/contract/events.ts).
function tellEvent(e: EventEntry): Told {
  switch (e.type) {
    case 'transportUnit.created':
      return { kind: 'unit', text: t('units.ev.created', { location: str(e.data.actualLocation) }) };
    case 'transportUnit.moved':
      return { kind: 'move', text: t('units.ev.moved', { from: str(e.data.from), to: str(e.data.to) }) };
    case 'transportUnit.changed': {
      const renamed = e.data.from?.barcode;
      if (renamed) return { kind: 'unit', text: t('units.ev.renamed', { from: renamed, to: str(e.data.barcode) }) };
      return { kind: 'unit', text: t('units.ev.changed', { fields: e.data.fields.join(', ') }) };
    }
    case 'transportUnit.stateChanged':
      return { kind: 'lock', text: t('units.ev.stateChanged', { from: unitState(e.data.from), to: unitState(e.data.state) }) };
    case 'transportUnit.deleted':
      return { kind: 'unit', text: t('units.ev.deleted', { location: str(e.data.actualLocation) }) };
    case 'transportUnit.divided':
      return { kind: 'unit', text: plural('units.ev.divided', e.data.parts) };
    case 'plc.bookedOntoLockedLocation':
      return { kind: 'lock', text: t('units.ev.bookedOntoLocked', { location: str(e.data.locationId), channel: str(e.data.channel) }) };
    case 'transportOrder.created':
      return {
        kind: 'order',
        text: t('units.ev.orderCreated', { target: target(e.data), priority: priorityText(e.data.priority), state: stateText(e.data.state) }),
      };
    case 'transportOrder.started':
      return { kind: 'order', text: t('units.ev.orderStarted', { target: target(e.data) }) };
    case 'transportOrder.finished':
      return { kind: 'order', text: t('units.ev.orderFinished', { target: target(e.data) }) };
    case 'transportOrder.canceled':
      return { kind: 'order', text: t('units.ev.orderCanceled', { target: target(e.data) }) };
    case 'transportOrder.redirected':
      return { kind: 'order', text: t('units.ev.orderRedirected', { target: target(e.data), from: target(e.data.from) }) };
    case 'transportOrder.changed':
      return { kind: 'order', text: orderChange(e.data) };
    case 'movement.created':
      return { kind: 'movement', text: t('units.ev.movementCreated', { from: str(e.data.sourceLocation), to: str(e.data.target) }) };
    case 'movement.completed':
      return { kind: 'movement', text: t('units.ev.movementCompleted', { to: str(e.data.target) }) };
    case 'movement.cancelled':
      return { kind: 'movement', text: t('units.ev.movementCancelled') };
    case 'movement.changed':
      return { kind: 'movement', text: t('units.ev.movementChanged', { state: str(e.data.state) }) };
    case 'packagingUnit.created':
      return { kind: 'stock', text: t('units.ev.stockCreated', { quantity: str(e.data.quantity), sku: str(e.data.sku) }) };
    case 'packagingUnit.moved':
      return { kind: 'stock', text: t('units.ev.stockMoved', { quantity: str(e.data.quantity), sku: str(e.data.sku), from: str(e.data.sourceLocation) }) };
    case 'loadUnit.reserved':
      return { kind: 'stock', text: t('units.ev.loadUnitReserved', { position: str(e.data.physicalPosition) }) };
    default:
      return { kind: 'unit', text: e.type };
  }
}

/** A priority, a problem text or a state (failed, interrupted) changed. */
function orderChange(d: LiveEvent<'transportOrder.changed'>['data']): string {
  const parts: string[] = [];
  if (d.fields.includes('priority')) parts.push(t('units.ev.orderPriority', { priority: priorityText(d.priority) }));
  if (d.fields.includes('state')) parts.push(t('units.ev.orderState', { state: stateText(d.state) }));
  if (d.fields.includes('message'))
    parts.push(typeof d.message === 'string' ? t('units.ev.orderProblem', { message: d.message }) : t('units.ev.orderProblemCleared'));
  return parts.length ? parts.join(' · ') : t('units.ev.orderChanged');
}

/** Why a RES_ without a target sent the unit nowhere, by the outcome of the REQ_ it answered. */
const NO_TARGET: Readonly<Record<string, string>> = {
  // Answered OK and no target: the unit stands at its order's target (or its last order just finished there).
  ok: 'units.tg.RES_.arrived',
  'no-order': 'units.tg.RES_.noOrder',
  'no-route': 'units.tg.RES_.noRoute',
  locked: 'units.tg.RES_.locked',
};

/**
 * A RES_ as what it told the PLC: on to its target location, or, without one, why the
 * unit goes nowhere further. Without its decoded fields it is only "an answer".
 */
function answerText(g: TelegramEntry, request: TelegramEntry | undefined): string {
  if (!g.fields) return t('units.tg.RES_');
  const target = g.fields.targetLocation;
  if (typeof target === 'string' && target) return t('units.tg.RES_.next', { target });
  return t((request && NO_TARGET[request.outcome]) ?? 'units.tg.RES_.stays');
}

function tellTelegram(g: TelegramEntry, request: TelegramEntry | undefined): Told {
  const name = g.type === 'RES_' ? answerText(g, request) : g.type && hasText(`units.tg.${g.type}`) ? t(`units.tg.${g.type}`) : t('units.tg.other');
  const params = { type: g.type ?? '????', name, channel: g.channel, location: g.location ?? '–' };
  const text = t(g.direction === 'in' ? 'units.tg.received' : 'units.tg.sent', params);
  return { kind: 'telegram', text };
}

/** An entry in words; a RES_ with the REQ_ it answered (trace.ts `answeredRequests`), which tells why it sent the unit nowhere. */
export const tell = (entry: TraceEntry, request?: TelegramEntry): Told => (entry.source === 'event' ? tellEvent(entry) : tellTelegram(entry, request));

function actorText(e: EventEntry): string {
  const key = `units.actor.${e.actor.kind}`;
  return hasText(key) ? t(key, { name: e.actor.name }) : e.actor.name;
}

/** "6.7" (a tenth is what tells a fast answer from a slow one), in the user's language. */
const milliseconds = (ms: number) => new Intl.NumberFormat(language.value, { maximumFractionDigits: 1 }).format(ms);

const outcomeText = (outcome: string) => (hasText(`units.outcome.${outcome}`) ? t(`units.outcome.${outcome}`) : outcome);

/** How a kind of entry shows (styles/tones.css); a telegram's frame is dashed (units.css). */
const KIND_TONES: Readonly<Record<string, string>> = { move: ' fill-accent', lock: ' frame-danger', order: ' frame-text' };

export function TraceItem({ entry, request }: { entry: TraceEntry; request?: TelegramEntry | undefined }) {
  const { kind, text } = tell(entry, request);
  const problem = entry.source === 'telegram' && entry.outcome !== 'ok' && entry.outcome !== 'reply';
  return (
    <li class={`trace-entry kind-${kind}`} data-source={entry.source} data-type={entry.type ?? ''}>
      <time class="trace-time" dateTime={entry.at}>
        {formatTime(entry.at)}
      </time>
      <span class={`chip trace-kind kind-${kind}${KIND_TONES[kind] ?? ''}`}>{t(`units.kind.${kind}`)}</span>
      <div class="trace-what">
        <p class="trace-text">{breakable(text)}</p>
        {entry.source === 'event' ? (
          <p class="trace-who muted">
            {actorText(entry)}
            {entry.reason && <q class="comment">{entry.reason}</q>}
          </p>
        ) : (
          <p class={`trace-who muted${problem ? ' trace-problem' : ''}`}>
            {outcomeText(entry.outcome)}
            {entry.latencyMs !== null && <span class="latency"> · {t('units.tg.latency', { ms: milliseconds(entry.latencyMs) })}</span>}
          </p>
        )}
      </div>
    </li>
  );
}
