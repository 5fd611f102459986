import client from 'prom-client';
import type { AlarmService } from './service.ts';
import { SEVERITIES } from './store.ts';

// The alarms that wait for someone, read at scrape time (docs/metrics.md).

export function alarmMetrics(registry: client.Registry, alarms: Pick<AlarmService, 'unshelvedBySeverity'>): void {
  new client.Gauge({
    name: 'wms_alarms_active',
    help: 'Open alarms (active or acknowledged) that are not shelved, by severity',
    labelNames: ['severity'],
    registers: [registry],
    collect() {
      const counts = alarms.unshelvedBySeverity();
      for (const severity of SEVERITIES) this.set({ severity }, counts[severity]);
    },
  });
}
