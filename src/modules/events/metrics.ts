import client from 'prom-client';
import type { LiveStreams } from './streams.ts';

// Clients on the live event stream, read at scrape time (docs/metrics.md). They live
// on the thread that serves requests (docs/realtime.md).

export function streamMetrics(registry: client.Registry, streams: Pick<LiveStreams, 'size' | 'stalled' | 'replaying'>): void {
  new client.Gauge({
    name: 'wms_event_streams_open',
    help: 'Live event streams (GET /v1/events) open now',
    registers: [registry],
    collect() {
      this.set(streams.size);
    },
  });
  new client.Counter({
    name: 'wms_event_streams_stalled_total',
    help: 'Event streams closed because their client did not read what it was sent',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(streams.stalled);
    },
  });
  new client.Gauge({
    name: 'wms_event_stream_replays',
    help: 'Replays of the event log to streams that asked for what they missed: served now, waiting for their turn, held up by a client that does not read',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { serving, waiting, blocked } = streams.replaying;
      this.set({ state: 'serving' }, serving);
      this.set({ state: 'waiting' }, waiting);
      this.set({ state: 'blocked' }, blocked);
    },
  });
}
