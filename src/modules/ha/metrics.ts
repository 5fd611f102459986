import client from 'prom-client';
import type { DegradedKind } from '../../ha/health.ts';
import type { PairRole, PairStatus } from '../../ha/status.ts';

// The pair, read at scrape time (docs/metrics.md, docs/ha.md): registered only on a box
// of a pair.

const ROLES: readonly PairRole[] = ['starting', 'joining', 'standby', 'taking-over', 'active', 'stepping-down'];
const DEGRADED_KINDS: readonly DegradedKind[] = ['standbyMissing', 'standbyLagging', 'activeMissing', 'nodeDown', 'leaseUnreachable'];

export function pairMetrics(registry: client.Registry, status: () => PairStatus): void {
  new client.Gauge({
    name: 'wms_ha_role',
    help: "This box's role in its pair: 1 for the role it has, 0 for the others",
    labelNames: ['role'],
    registers: [registry],
    collect() {
      const { role } = status();
      for (const r of ROLES) this.set({ role: r }, r === role ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'wms_ha_lease_term',
    help: "The term of the pair's lease as this box last saw it (rises with every takeover)",
    registers: [registry],
    collect() {
      this.set(status().lease.term ?? 0);
    },
  });
  new client.Gauge({
    name: 'wms_ha_lease_reachable',
    help: "1 while the lease's bucket answers this box (a quorum of the pair's three NATS nodes), else 0",
    registers: [registry],
    collect() {
      this.set(status().lease.reachable ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'wms_ha_applied_seq',
    help: "The last change-log entry in this box's database",
    registers: [registry],
    collect() {
      this.set(status().replication.appliedSeq);
    },
  });
  new client.Gauge({
    name: 'wms_ha_lag_entries',
    help: 'Change-log entries the standby has still to apply (0 on the active)',
    registers: [registry],
    collect() {
      this.set(status().replication.lagEntries ?? 0);
    },
  });
  new client.Gauge({
    name: 'wms_ha_degraded',
    help: "What keeps the pair from surviving its next failure, as GET /v1/ha's `degraded` lists it: 1 for each kind found, else 0",
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const found = new Set(status().degraded.map((d) => d.kind));
      for (const kind of DEGRADED_KINDS) this.set({ kind }, found.has(kind) ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'wms_ha_last_failover_timestamp_seconds',
    help: 'When this box last became active (Unix time; 0: never since it started)',
    registers: [registry],
    collect() {
      const at = status().lastFailover?.at;
      this.set(at ? Date.parse(at) / 1000 : 0);
    },
  });
}
