import client from 'prom-client';
import type { Federation } from './federation.ts';

// The hub link (docs/federation.md): connection, export cursor and lag, commands — read
// from the link's status at scrape time, not counted a second time. Registered only
// while a hub link is configured.

export class FederationMetrics {
  constructor(registry: client.Registry, federation: Federation) {
    const registers = [registry];
    const gauge = (name: string, help: string, read: (s: ReturnType<Federation['status']>) => number) =>
      new client.Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read(federation.status()));
        },
      });
    gauge('wms_federation_connected', "The hub link's NATS connection is up (1) or not (0)", (s) => (s.state === 'CONNECTED' ? 1 : 0));
    gauge('wms_federation_cursor', "The last event id the hall's stream acknowledged", (s) => s.cursor);
    gauge('wms_federation_events_waiting', "Events committed but not yet in the hall's stream", (s) => s.eventsWaiting);
    gauge('wms_federation_lag_seconds', "Age of the oldest event not yet in the hall's stream (0 when none waits)", (s) => s.lagSeconds);
    const counter = (name: string, help: string, labelNames: string[], read: (s: ReturnType<Federation['status']>) => Record<string, number>) =>
      new client.Counter({
        name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          for (const [label, value] of Object.entries(read(federation.status()))) this.inc({ [labelNames[0]!]: label }, value);
        },
      });
    counter(
      'wms_federation_events_total',
      'Events the export handed to the stream, by outcome (published; duplicate: the stream had it already; reordered: found stored ahead of a missing one; truncated: too large for the server, sent without data; lost: pruned before export)',
      ['outcome'],
      (s) => ({
        published: s.export.published,
        duplicate: s.export.duplicates,
        reordered: s.export.reordered,
        truncated: s.export.truncated,
        lost: s.export.lost,
      }),
    );
    counter('wms_federation_commands_total', 'Hub commands by outcome (done, declined by the API, repeated answer, malformed)', ['outcome'], (s) => ({
      done: s.commands.done,
      declined: s.commands.declined,
      repeated: s.commands.repeated,
      malformed: s.commands.malformed,
    }));
  }
}
