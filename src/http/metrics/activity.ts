import client from 'prom-client';
import { SEVERITIES, type Severity } from '../../modules/alarms/store.ts';

// What operators watch besides the conveyor: clients on the live event stream, and
// the alarms that wait for someone. Both read at scrape time.

export interface ActivitySources {
  /** Event streams open now. */
  streams: { readonly size: number };
  /** Open alarms that are not shelved, by severity. */
  alarms: { unshelvedBySeverity(): Record<Severity, number> };
}

export function activityMetrics(registry: client.Registry, { streams, alarms }: ActivitySources): void {
  const registers = [registry];
  new client.Gauge({
    name: 'wms_event_streams_open',
    help: 'Live event streams (GET /v1/events) open now',
    registers,
    collect() {
      this.set(streams.size);
    },
  });
  new client.Gauge({
    name: 'wms_alarms_active',
    help: 'Open alarms (active or acknowledged) that are not shelved, by severity',
    labelNames: ['severity'],
    registers,
    collect() {
      const counts = alarms.unshelvedBySeverity();
      for (const severity of SEVERITIES) this.set({ severity }, counts[severity]);
    },
  });
}
