import type { EventRecord } from '../../core/event-catalogue.ts';
import type { StoredEvent } from '../../core/event-log.ts';

// The Server-Sent Events frame of an event, two ways to the same bytes:
// - a live event (the record the unit of work committed) is serialised once, whatever
//   the number of streams;
// - a replayed event is framed from its row as the log stores it: `data` is already
//   JSON text, so it goes in as it is, without parsing it and serialising it again (a
//   replay from the start of the log frames tens of thousands of events per client).
// A client must not see a difference between an event it got live and the same event
// replayed after a reconnect: the stored frame writes the record's fields in the order
// the unit of work builds them (id, type, at, actor, subject, data, reason) with
// JSON.stringify for every string, and the test of the streams compares the two.

const frames = new WeakMap<EventRecord, string>();

/** The SSE frame of a live event, built once. */
export function frameOf(event: EventRecord): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}

const text = JSON.stringify;

/** The SSE frame of an event read from the log: the bytes `frameOf` gives for the same event. */
export function storedFrameOf(row: StoredEvent): string {
  const reason = row.reason === null ? '' : `,"reason":${text(row.reason)}`;
  return (
    `id: ${row.id}\nevent: ${row.type}\ndata: {"id":${row.id},"type":${text(row.type)},"at":${text(row.at)},` +
    `"actor":{"kind":${text(row.actor_kind)},"name":${text(row.actor_name)}},` +
    `"subject":{"kind":${text(row.subject_kind)},"key":${text(row.subject_key)}},"data":${row.data}${reason}}\n\n`
  );
}
