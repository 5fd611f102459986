import { plc } from '../../plc/index.ts';
import { federation } from '../federation/index.ts';
import { hmi } from '../hmi/index.ts';
import { alarms } from './alarms/index.ts';
import { backups } from './backups/index.ts';
import { common } from './common/index.ts';
import { events } from './events/index.ts';
import { ha } from './ha/index.ts';
import { inventory } from './inventory/index.ts';
import type { ModuleDefinition } from './module.ts';
import { movements } from './movements/index.ts';
import { preferences } from './preferences/index.ts';
import { receiving } from './receiving/index.ts';
import { retention } from './retention/index.ts';
import { routing } from './routing/index.ts';
import { shipping } from './shipping/index.ts';
import { system } from './system/index.ts';
import { tasks } from './tasks/index.ts';
import { transportOrders } from './transport-orders/index.ts';
import { users } from './users/index.ts';

// The appliance is this list (docs/extending.md). Created in order, each reaching only
// those before it (`ctx.use`); started in order once HTTP listens; stopped in reverse.
// The system module first (the metrics registry, the entry index), the PLC channels
// last: started once everything they call runs, stopped first, so that no telegram
// reaches a closing database.
export const MODULES = [
  system,
  retention,
  users,
  preferences,
  tasks,
  common,
  inventory,
  movements,
  shipping,
  receiving,
  transportOrders,
  routing,
  backups,
  alarms,
  hmi,
  federation,
  events,
  ha,
  plc,
] as const;

/** Module name → its service, as `ctx.use(name)` and `app.module(name)` give it. */
export type Services = { [D in (typeof MODULES)[number] as D['name']]: D extends ModuleDefinition<string, infer S> ? S : never };
