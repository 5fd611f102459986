import type { z } from 'zod';
import type { ChannelCountersSchema, ChannelSnapshotSchema, TelegramLogEntrySchema, SerialPortSchema, SignalChannelSnapshotSchema } from '../../plc/openapi.ts';
import type { FederationStatusSchema } from '../federation/openapi.ts';
import type { AlarmSchema } from '../modules/alarms/openapi.ts';
import type { BackupSchema } from '../modules/backups/openapi.ts';
import type { PairStatusSchema } from '../modules/ha/openapi.ts';
import type {
  AccountSchema,
  LocationGroupSchema,
  LocationSchema,
  LocationTypeSchema,
  TransportUnitTypeSchema,
  TransportUnitSchema,
} from '../modules/common/openapi.ts';
import type { EventSchema, TelegramSchema, UnitHistoryEntrySchema, TicketSchema } from '../modules/events/openapi.ts';
import type { ProductSchema, PackagingUnitSchema, LoadUnitSchema } from '../modules/inventory/openapi.ts';
import type { MovementSchema } from '../modules/movements/openapi.ts';
import type { PreferenceSchema } from '../modules/preferences/openapi.ts';
import type { ReceivingOrderSchema } from '../modules/receiving/openapi.ts';
import type { RouteSchema, HopSchema, DefaultHopSchema, DecisionSchema } from '../modules/routing/openapi.ts';
import type {
  ProductPositionSchema,
  TransportUnitPositionSchema,
  PositionSchema,
  ShippingOrderSchema,
  ShippingOrderMinimumSchema,
} from '../modules/shipping/openapi.ts';
import type { HealthSchema, ReadinessSchema, ApiDescriptionSchema } from '../modules/system/openapi.ts';
import type { TaskSchema } from '../modules/tasks/openapi.ts';
import type { TransportOrderSchema } from '../modules/transport-orders/openapi.ts';
import type { TokenSchema, UserSchema, GrantSchema, RoleSchema, ApiKeySchema, NewApiKeySchema } from '../modules/users/openapi.ts';

// The representations the API sends, as the schemas that describe them in
// `/openapi.json` infer them: one source for the server, the HMI and the tests. A field
// renamed or retyped in a schema fails `tsc -p src/hmi/app` and the tests' type check.
// Import with `import type` only: the HMI's bundle takes nothing of the server.

// The PLC channels (plc/routes.ts)
export type ChannelCounters = z.infer<typeof ChannelCountersSchema>;
export type ChannelSnapshot = z.infer<typeof ChannelSnapshotSchema>;
export type TelegramLogEntry = z.infer<typeof TelegramLogEntrySchema>;
export type SerialPort = z.infer<typeof SerialPortSchema>;
export type SignalChannelSnapshot = z.infer<typeof SignalChannelSnapshotSchema>;

// The hub link
export type FederationStatus = z.infer<typeof FederationStatusSchema>;

// Alarms
export type Alarm = z.infer<typeof AlarmSchema>;

// The pair (GET /v1/ha)
export type PairStatus = z.infer<typeof PairStatusSchema>;

// Backups
export type Backup = z.infer<typeof BackupSchema>;

// Accounts, locations, location groups and types, transport units and their types
export type Account = z.infer<typeof AccountSchema>;
export type LocationGroup = z.infer<typeof LocationGroupSchema>;
export type Location = z.infer<typeof LocationSchema>;
export type LocationType = z.infer<typeof LocationTypeSchema>;
export type TransportUnitType = z.infer<typeof TransportUnitTypeSchema>;
export type TransportUnit = z.infer<typeof TransportUnitSchema>;

// The event stream and history
export type Event = z.infer<typeof EventSchema>;
export type Telegram = z.infer<typeof TelegramSchema>;
export type UnitHistoryEntry = z.infer<typeof UnitHistoryEntrySchema>;
export type Ticket = z.infer<typeof TicketSchema>;

// Inventory
export type Product = z.infer<typeof ProductSchema>;
export type PackagingUnit = z.infer<typeof PackagingUnitSchema>;
export type LoadUnit = z.infer<typeof LoadUnitSchema>;

// Movements
export type Movement = z.infer<typeof MovementSchema>;

// Preferences
export type Preference = z.infer<typeof PreferenceSchema>;

// Receiving
export type ReceivingOrder = z.infer<typeof ReceivingOrderSchema>;

// Routing
export type Route = z.infer<typeof RouteSchema>;
export type Hop = z.infer<typeof HopSchema>;
export type DefaultHop = z.infer<typeof DefaultHopSchema>;
export type Decision = z.infer<typeof DecisionSchema>;

// Shipping
export type ProductPosition = z.infer<typeof ProductPositionSchema>;
export type TransportUnitPosition = z.infer<typeof TransportUnitPositionSchema>;
export type Position = z.infer<typeof PositionSchema>;
export type ShippingOrder = z.infer<typeof ShippingOrderSchema>;
export type ShippingOrderMinimum = z.infer<typeof ShippingOrderMinimumSchema>;

// The appliance itself
export type Health = z.infer<typeof HealthSchema>;
export type Readiness = z.infer<typeof ReadinessSchema>;
export type ApiDescription = z.infer<typeof ApiDescriptionSchema>;

// Tasks
export type Task = z.infer<typeof TaskSchema>;

// Transport orders
export type TransportOrder = z.infer<typeof TransportOrderSchema>;

// Users, roles, grants, API keys, tokens
export type Token = z.infer<typeof TokenSchema>;
export type User = z.infer<typeof UserSchema>;
export type Grant = z.infer<typeof GrantSchema>;
export type Role = z.infer<typeof RoleSchema>;
export type ApiKey = z.infer<typeof ApiKeySchema>;
export type NewApiKey = z.infer<typeof NewApiKeySchema>;
