// What the framer dropped on a connection (bytes before a sync, oversized frames, wrong
// BCCs): counted, and warned of through the NoisyLog (a PLC that sends garbage in a loop
// must not fill the log). A connection that sends OVERFLOW_LIMIT oversized frames within
// OVERFLOW_WINDOW_MS is not a PLC speaking our framing: the session closes it.

import type { Logger } from '../../src/core/log.ts';
import type { Framer } from './framing.ts';
import type { NoisyLog } from './noisy-log.ts';
import type { Peer } from './peers.ts';
import type { SessionCounters } from './session.ts';

export const OVERFLOW_LIMIT = 5;
export const OVERFLOW_WINDOW_MS = 60_000;

type FramingEvents = ReturnType<Framer['push']>['events'];

/** Counts the framer's events of one read; true when the connection has overflowed too often and is to be closed. */
export function framingFaults(peer: Peer, events: FramingEvents, counters: SessionCounters, log: Logger, noisy: NoisyLog): boolean {
  const conn = peer.conn;
  for (const event of events) {
    switch (event.kind) {
      case 'resync':
        counters.resyncs++;
        log.debug({ connection: conn.id, bytes: event.bytes }, 'bytes before a sync dropped');
        break;
      case 'overflow': {
        counters.overflows++;
        const now = Date.now();
        peer.overflows = peer.overflows.filter((t) => now - t < OVERFLOW_WINDOW_MS);
        peer.overflows.push(now);
        noisy.warn('overflow', { connection: conn.id, bytes: event.bytes }, 'frame over the size limit dropped');
        break;
      }
      case 'bcc-error':
        counters.bccErrors++;
        noisy.warn('bcc-error', { connection: conn.id, bytes: event.bytes }, 'frame with a wrong BCC dropped');
        break;
      case 'non-ascii':
        break; // the codec rejects the frame and counts it
    }
  }
  return peer.overflows.length >= OVERFLOW_LIMIT;
}
