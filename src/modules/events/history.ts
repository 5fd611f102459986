import type { ActorKind } from '../../core/actor.ts';
import { eventTypes, type EventRecord, type SubjectKind } from '../../core/event-catalogue.ts';
import type { EventLog, EventQuery } from '../../core/event-log.ts';
import { validationError } from '../../core/errors.ts';
import { scanById, type ScanResult } from '../../core/paging.ts';

// History and audit from the event log: who changed what, when, why; and the trace of
// one transport unit, its events merged with the telegrams that named it.

const ACTOR = /^(user|apiKey|plc|hub|system):(.+)$/;

/** Type patterns (`transportUnit.*`, `location.stateChanged`, `*`) as the known types they match; 400 for one that matches none. */
export function expandTypes(patterns: readonly string[] | undefined): string[] | undefined {
  if (!patterns?.length || patterns.includes('*')) return undefined;
  const known = eventTypes();
  const types = new Set<string>();
  for (const pattern of patterns) {
    const matching = pattern.endsWith('*') ? known.filter((t) => t.startsWith(pattern.slice(0, -1))) : known.filter((t) => t === pattern);
    if (matching.length === 0) {
      throw validationError(`Validation failed: types: [${pattern}] names no event type; the types are listed in docs/events.md`);
    }
    for (const type of matching) types.add(type);
  }
  return [...types];
}

/** A subject key alone is refused (400): a key names different things of different kinds. */
export function requireSubjectKind(filter: { subjectKind?: SubjectKind | undefined; subject?: string | undefined }): void {
  if (filter.subject !== undefined && filter.subjectKind === undefined) {
    throw validationError('Validation failed: subjectKind: required with subject (a key names different things of different kinds)');
  }
}

/** `admin` (a name of any kind) or `plc:CNV01` (kind and name). */
function parseActor(actor: string | undefined): Pick<EventQuery, 'actorKind' | 'actorName'> {
  if (actor === undefined) return {};
  const m = ACTOR.exec(actor);
  return m ? { actorKind: m[1] as ActorKind, actorName: m[2] } : { actorName: actor };
}

interface HistoryFilter {
  types?: string[] | undefined;
  subjectKind?: SubjectKind | undefined;
  subject?: string | undefined;
  actor?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A telegram that named a unit, as the PLC side logs it: its position in that log, when, which way; the rest is the PLC side's. */
interface TracedTelegram {
  id: number;
  at: string;
  direction: 'in' | 'out';
}

/** A transport unit's history entry: an event, or a telegram that named the unit, its fields decoded. */
export type UnitHistoryEntry = (EventRecord & { source: 'event' }) | (TracedTelegram & { source: 'telegram' });

/**
 * The telegrams that named a unit, and their fields decoded as their channels are set
 * up now: given by the PLC side (plc/index.ts), which knows its log and its codecs.
 */
interface TelegramTrace<T extends TracedTelegram = TracedTelegram> {
  /** Up to `limit` telegrams that named the barcode, after the position `after`, oldest first. */
  forBarcode(barcode: string, after: number, limit: number): Promise<T[]>;
  /** The same telegrams with their fields decoded, in the same order. */
  withFields(records: readonly T[]): Promise<TracedTelegram[]>;
}

export function createHistory(log: EventLog) {
  // Given by the PLC side once it is built (traceTelegrams); a unit's trace has only events until then.
  let telegrams: TelegramTrace | undefined;
  return {
    /** Where a unit's trace takes its telegrams from. */
    traceTelegrams<T extends TracedTelegram>(trace: TelegramTrace<T>): void {
      // Safe: withFields is only ever given what forBarcode of the same trace returned.
      telegrams = trace as unknown as TelegramTrace;
    },

    /** A page of events matching the filter, oldest first, after the id `after`. */
    events(filter: HistoryFilter, after: number, limit: number): Promise<ScanResult<EventRecord>> {
      requireSubjectKind(filter);
      const query: EventQuery = {
        types: expandTypes(filter.types),
        ...parseActor(filter.actor),
        from: filter.from,
        to: filter.to,
      };
      const about = filter.subject === undefined ? undefined : { kind: filter.subjectKind!, key: filter.subject };
      if (!about) query.subjectKind = filter.subjectKind;
      let start = after;
      let upto = log.newest();
      if (filter.from !== undefined) start = Math.max(start, log.firstIdAt(filter.from) - 1);
      if (filter.to !== undefined) upto = Math.min(upto, log.firstIdAt(afterMs(filter.to)) - 1);
      // The events of one thing come by index; every other filter is scanned window by window.
      if (about) {
        return log
          .about(about, query, start, upto, limit + 1)
          .then((rows) => (rows.length > limit ? { items: rows.slice(0, limit), next: rows[limit - 1]!.id } : { items: rows }));
      }
      return scanById(
        (a, b, n) => log.window(query, a, b, n),
        (e) => e.id,
        { after: start, upto },
        limit,
      );
    },

    /**
     * The trace of a transport unit: every event about it (created, moved, its orders,
     * movements and stock) and every telegram that named it, oldest first. Positions in
     * both logs make the cursor.
     */
    async unit(barcode: string, after: { e: number; t: number }, limit: number): Promise<{ items: UnitHistoryEntry[]; next?: { e: number; t: number } }> {
      const events = await log.about({ kind: 'transportUnit', key: barcode }, {}, after.e, Number.MAX_SAFE_INTEGER, limit + 1);
      const logged = telegrams ? await telegrams.forBarcode(barcode, after.t, limit + 1) : [];
      // Which log each entry of the page comes from, in time order; then its telegrams decoded.
      const sources: ('event' | 'telegram')[] = [];
      let e = 0;
      let t = 0;
      const cursor = { ...after };
      while (sources.length < limit && (e < events.length || t < logged.length)) {
        const event = events[e];
        const telegram = logged[t];
        if (event && (!telegram || before(event, telegram))) {
          sources.push('event');
          cursor.e = event.id;
          e++;
        } else {
          sources.push('telegram');
          cursor.t = telegram!.id;
          t++;
        }
      }
      const decoded = t > 0 ? await telegrams!.withFields(logged.slice(0, t)) : [];
      let nextEvent = 0;
      let nextTelegram = 0;
      const items = sources.map((source): UnitHistoryEntry =>
        source === 'event' ? { source, ...events[nextEvent++]! } : { source, ...decoded[nextTelegram++]! },
      );
      const more = e < events.length || t < logged.length;
      return more ? { items, next: cursor } : { items };
    },
  };
}

/** Events and telegrams in time order; at the same millisecond a received telegram comes before what it caused, a sent one after. */
function before(event: EventRecord, telegram: TracedTelegram): boolean {
  if (event.at !== telegram.at) return event.at < telegram.at;
  return telegram.direction === 'out';
}

/** The instant one millisecond after an ISO time (an inclusive upper bound as an exclusive one). */
function afterMs(iso: string): string {
  return new Date(Date.parse(iso) + 1).toISOString();
}

export type History = ReturnType<typeof createHistory>;
