import type { EventRecord } from '../../core/event-catalogue.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { NO_ROUTE_PROBLEM } from '../transport-orders/service.ts';
import type { AlarmRaising } from './raising.ts';
import type { AlarmStore } from './store.ts';

// What raises and clears the alarms that follow a change elsewhere: a location's PLC
// state, a PLC's ERR_, a transport order that failed or found no route, a backup. Each
// is a reaction inside the unit of work of its cause, so the alarm and its cause commit
// together (or roll back together). The conditions a timer watches are in watchers.ts.

interface AlarmCauseDeps {
  work: UnitOfWork;
  store: AlarmStore;
  raising: AlarmRaising;
  /** True when a location group is available in and out (an ERR_ on it is over). */
  groupAvailable: (name: string) => boolean;
}

/** Registers the reactions; called once, when the service is built. */
export function raiseOnCauses({ work, store, raising, groupAvailable }: AlarmCauseDeps): void {
  const { raise, clear } = raising;

  work.react('location.stateChanged', (e) => {
    if (e.data.field !== 'plcState') return;
    const condition = `location.plcState:${e.data.locationId}`;
    const value = Number(e.data.value);
    if (value > 0) {
      raise({
        condition,
        kind: 'location.plcState',
        severity: 'major',
        message: `Location ${e.data.locationId} reports PLC state ${value}`,
        params: { location: e.data.locationId, plcState: value },
        source: { kind: 'location', key: e.data.locationId },
        clearsOnAck: false,
      });
    } else {
      clear(condition);
    }
  });
  work.react('location.deleted', (e) => clear(`location.plcState:${e.data.locationId}`));

  work.react('plcChannel.stateChanged', (e) => {
    if (e.data.state === 'ONLINE') clear(`plcChannel.down:${e.data.name}`);
  });

  work.react('plc.groupError', (e) => {
    const where = e.data.name === null ? '' : ` on location group ${e.data.name}`;
    raise({
      condition: `plc.error:${e.data.channel}:${e.data.name ?? ''}`,
      kind: 'plc.error',
      severity: 'major',
      message: `PLC ${e.data.channel} reports error ${e.data.code}${where}`,
      // The group is the alarm's source; without one, the channel is.
      params: e.data.name === null ? { channel: e.data.channel, code: e.data.code } : { channel: e.data.channel, code: e.data.code, group: e.data.name },
      source: e.data.name === null ? { kind: 'plcChannel', key: e.data.channel } : { kind: 'locationGroup', key: e.data.name },
      clearsOnAck: e.data.name === null,
    });
  });
  work.react('locationGroup.stateChanged', (e) => {
    if (e.data.value !== 'AVAILABLE' || !groupAvailable(e.data.name)) return;
    for (const alarm of store.openOfKind('plc.error')) {
      if (alarm.source.kind === 'locationGroup' && alarm.source.key === e.data.name) clear(alarm.condition);
    }
  });

  const orderEnded = (e: EventRecord<'transportOrder.finished' | 'transportOrder.canceled' | 'transportOrder.changed'>) => {
    if (['FINISHED', 'CANCELED', 'ONFAILURE', 'INTERRUPTED'].includes(e.data.state)) clear(`transportOrder.noRoute:${e.data.pKey}`);
  };
  work.react('transportOrder.finished', orderEnded);
  work.react('transportOrder.canceled', orderEnded);
  work.react('transportOrder.changed', (e) => {
    orderEnded(e);
    if (e.data.state === 'ONFAILURE' && e.data.from !== 'ONFAILURE') {
      raise({
        condition: `transportOrder.failed:${e.data.pKey}`,
        kind: 'transportOrder.failed',
        severity: 'minor',
        message: `Transport order ${e.data.pKey} of unit ${e.data.transportUnitBK} went ONFAILURE${e.data.message ? `: ${e.data.message}` : ''}`,
        // The problem is the order's own text, as whoever set it wrote it.
        params: { order: e.data.pKey, unit: e.data.transportUnitBK, ...(e.data.message ? { problem: e.data.message } : {}) },
        source: { kind: 'transportOrder', key: e.data.pKey },
        clearsOnAck: true,
      });
    }
    if (!e.data.fields.includes('message') || e.data.message === undefined) return;
    const condition = `transportOrder.noRoute:${e.data.pKey}`;
    if (e.data.message?.startsWith(NO_ROUTE_PROBLEM) && e.data.state === 'STARTED') {
      raise({
        condition,
        kind: 'transportOrder.noRoute',
        severity: 'major',
        message: `Transport order ${e.data.pKey}: unit ${e.data.transportUnitBK} has ${e.data.message}`,
        params: { order: e.data.pKey, unit: e.data.transportUnitBK, location: e.data.message.slice(NO_ROUTE_PROBLEM.length).trim() },
        source: { kind: 'transportOrder', key: e.data.pKey },
        clearsOnAck: false,
      });
    } else {
      clear(condition);
    }
  });

  work.react('backup.failed', (e) =>
    raise({
      condition: 'backup.failed',
      kind: 'backup.failed',
      severity: 'major',
      message: `A backup could not be taken: ${e.data.error}`,
      params: { error: e.data.error },
      source: { kind: 'backup', key: 'backup' },
      clearsOnAck: false,
    }),
  );
  work.react('backup.created', () => clear('backup.failed'));
}
