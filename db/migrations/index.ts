import type { Migration } from '../../src/core/migrations.ts';
import foundation from './0010-foundation.sql';
import users from './0020-users.sql';
import preferences from './0030-preferences.sql';
import tasks from './0040-tasks.sql';
import inventory from './0050-inventory.sql';
import movements from './0060-movements.sql';
import shipping from './0070-shipping.sql';
import receiving from './0080-receiving.sql';
import routing from './0090-routing.sql';
import transportOrders from './0100-transport-orders.sql';
import openOrderTargets from './0110-open-order-targets.sql';
import eventLog from './0120-event-log.sql';
import loginLockout from './0130-login-lockout.sql';
import backupsGrant from './0140-backups-grant.sql';
import listIndexes from './0150-list-indexes.sql';
import federation from './0160-federation.sql';
import loginAddresses from './0170-login-addresses.sql';
import alarmParams from './0180-alarm-params.sql';
import ha from './0190-ha.sql';
import plcResends from './0200-plc-resends.sql';

// Every migration file, in order. The files are bundled into the binary as text; a
// test checks that this list names every file of the folder.
export const migrations: readonly Migration[] = [
  { version: 10, name: '0010-foundation', sql: foundation },
  { version: 20, name: '0020-users', sql: users },
  { version: 30, name: '0030-preferences', sql: preferences },
  { version: 40, name: '0040-tasks', sql: tasks },
  { version: 50, name: '0050-inventory', sql: inventory },
  { version: 60, name: '0060-movements', sql: movements },
  { version: 70, name: '0070-shipping', sql: shipping },
  { version: 80, name: '0080-receiving', sql: receiving },
  { version: 90, name: '0090-routing', sql: routing },
  { version: 100, name: '0100-transport-orders', sql: transportOrders },
  { version: 110, name: '0110-open-order-targets', sql: openOrderTargets },
  { version: 120, name: '0120-event-log', sql: eventLog },
  { version: 130, name: '0130-login-lockout', sql: loginLockout },
  { version: 140, name: '0140-backups-grant', sql: backupsGrant },
  { version: 150, name: '0150-list-indexes', sql: listIndexes },
  { version: 160, name: '0160-federation', sql: federation },
  { version: 170, name: '0170-login-addresses', sql: loginAddresses },
  { version: 180, name: '0180-alarm-params', sql: alarmParams },
  { version: 190, name: '0190-ha', sql: ha },
  { version: 200, name: '0200-plc-resends', sql: plcResends },
];
