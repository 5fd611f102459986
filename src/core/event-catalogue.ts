import type { Actor } from './actor.ts';

// Every event the appliance records, in one place: its type, what it is about (the
// subject's kind; the key is the subject's business key) and its data. Services emit
// them inside a unit of work (core/unit-of-work.ts); the log keeps them; live views,
// history, alarms and the hub export read them. Adding an event is adding a line here.
//
// Data carries business keys (barcode, coordinate, name) and pKeys, and "before and
// after" where a change has them (`from`/`to`, `from` + the new value).

export const SUBJECT_KINDS = [
  'alarm',
  'apiKey',
  'backup',
  'grant',
  'hubCommand',
  'loadUnit',
  'location',
  'locationGroup',
  'locationType',
  'movement',
  'packagingUnit',
  'plcChannel',
  'preference',
  'product',
  'receivingOrder',
  'role',
  'route',
  'routing',
  'shippingOrder',
  'task',
  'transportOrder',
  'transportUnit',
  'transportUnitType',
  'user',
] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

export interface Subject {
  kind: SubjectKind;
  key: string;
}

type Keyed = { pKey: string };
type OrderData = Keyed & {
  transportUnitBK: string;
  state: string;
  priority: string;
  targetLocation: string | null;
  targetLocationGroup: string | null;
};
type MovementData = Keyed & { transportUnitBk: string; type: string; state: string };
type StateFlag = { field: string; value: unknown; from: unknown };
type AlarmData = {
  alarmId: number;
  kind: string;
  severity: string;
  state: string;
  message: string;
  /** The values of the message by name (the alarm's `params`). */
  params: Readonly<Record<string, string | number>>;
  source: { kind: string; key: string };
  count: number;
};

type HubCommandAnswer = {
  commandId: string;
  kind: string;
  /** The HTTP status the same request would have had: 201/200/204, or the error's. */
  status: number;
  ok: boolean;
  /** The created or changed resource, or the error body (with its messageKey). */
  body: unknown;
  /** True when the command had been run before: this repeats the first answer. */
  repeated: boolean;
};

export interface EventCatalogue {
  // ---- users, roles, grants, API keys
  'user.created': { subject: 'user'; data: Keyed & { username: string } };
  'user.changed': { subject: 'user'; data: Keyed & { username: string } };
  'user.renamed': { subject: 'user'; data: Keyed & { from: string; to: string } };
  'user.passwordChanged': { subject: 'user'; data: Keyed & { username: string } };
  'user.locked': { subject: 'user'; data: Keyed & { username: string; failedLogins: number; lockedUntil: string | null } };
  'user.unlocked': { subject: 'user'; data: Keyed & { username: string } };
  'user.deleted': { subject: 'user'; data: Keyed & { username: string } };
  'role.created': { subject: 'role'; data: Keyed & { name: string } };
  'role.changed': { subject: 'role'; data: Keyed & { name: string } };
  'role.renamed': { subject: 'role'; data: Keyed & { from: string; to: string } };
  'role.deleted': { subject: 'role'; data: Keyed & { name: string } };
  'grant.changed': { subject: 'grant'; data: Keyed & { name: string; change: 'created' | 'changed' | 'deleted' } };
  'apiKey.created': { subject: 'apiKey'; data: Keyed & { name: string; roleName: string } };
  'apiKey.revoked': { subject: 'apiKey'; data: Keyed & { name: string } };
  // ---- preferences, tasks
  'preference.created': { subject: 'preference'; data: Keyed & { scope: string; owner: string | null; key: string } };
  'preference.changed': { subject: 'preference'; data: Keyed & { scope: string; owner: string | null; key: string } };
  'preference.deleted': { subject: 'preference'; data: Keyed & { scope: string; owner: string | null; key: string } };
  'task.created': { subject: 'task'; data: Keyed & { taskId: string; type: string } };
  'task.changed': { subject: 'task'; data: Keyed & { taskId: string } };
  'task.stateChanged': { subject: 'task'; data: Keyed & { taskId: string; operation: string; from: string; to: string } };
  // ---- common: locations, groups, types, transport units
  'location.created': { subject: 'location'; data: Keyed & { locationId: string } };
  'location.changed': { subject: 'location'; data: Keyed & { locationId: string; from?: string } };
  'location.deleted': { subject: 'location'; data: Keyed & { locationId: string } };
  'location.stateChanged': { subject: 'location'; data: Keyed & { locationId: string } & StateFlag };
  'locationGroup.created': { subject: 'locationGroup'; data: Keyed & { name: string } };
  'locationGroup.changed': { subject: 'locationGroup'; data: Keyed & { name: string; from?: string } };
  'locationGroup.deleted': { subject: 'locationGroup'; data: Keyed & { name: string } };
  'locationGroup.stateChanged': { subject: 'locationGroup'; data: Keyed & { name: string } & StateFlag };
  'locationType.created': { subject: 'locationType'; data: Keyed & { type: string } };
  'locationType.changed': { subject: 'locationType'; data: Keyed & { type: string } };
  'locationType.deleted': { subject: 'locationType'; data: Keyed & { type: string } };
  'transportUnitType.created': { subject: 'transportUnitType'; data: Keyed & { type: string } };
  'transportUnitType.changed': { subject: 'transportUnitType'; data: Keyed & { type: string } };
  'transportUnitType.deleted': { subject: 'transportUnitType'; data: Keyed & { type: string } };
  'transportUnit.created': { subject: 'transportUnit'; data: Keyed & { barcode: string; actualLocation: string } };
  'transportUnit.changed': { subject: 'transportUnit'; data: Keyed & { barcode: string; fields: string[]; from?: { barcode: string } } };
  'transportUnit.moved': { subject: 'transportUnit'; data: Keyed & { barcode: string; from: string; to: string } };
  'transportUnit.stateChanged': { subject: 'transportUnit'; data: Keyed & { barcode: string; from: string; state: string } };
  'transportUnit.deleted': { subject: 'transportUnit'; data: Keyed & { barcode: string; actualLocation: string } };
  'transportUnit.divided': { subject: 'transportUnit'; data: { barcode: string; parts: number; loadUnitType: string } };
  // ---- inventory
  'product.created': { subject: 'product'; data: Keyed & { sku: string } };
  'product.changed': { subject: 'product'; data: Keyed & { sku: string } };
  'loadUnit.reserved': { subject: 'loadUnit'; data: Keyed & { transportUnitBK: string; physicalPosition: string; sku: string | null } };
  'packagingUnit.created': {
    subject: 'packagingUnit';
    data: Keyed & { sku: string; transportUnitBK: string | null; physicalPosition: string | null; quantity: string };
  };
  'packagingUnit.allocationChanged': { subject: 'packagingUnit'; data: Keyed & { sku: string; allocated: boolean } };
  'packagingUnit.moved': {
    subject: 'packagingUnit';
    data: Keyed & { sku: string; sourceLocation: string; quantity: string; transportUnitBK: string | null; physicalPosition: string | null; taken: unknown };
  };
  // ---- receiving, shipping, movements
  'receivingOrder.created': { subject: 'receivingOrder'; data: Keyed & { orderId: string; positions: number } };
  'receivingOrder.canceled': { subject: 'receivingOrder'; data: Keyed & { orderId: string } };
  'receivingOrder.captured': { subject: 'receivingOrder'; data: Keyed & { orderId: string; state: string; captures: unknown[] } };
  'receivingOrder.processed': { subject: 'receivingOrder'; data: Keyed & { orderId: string } };
  'shippingOrder.created': { subject: 'shippingOrder'; data: Keyed & { orderId: string } };
  'shippingOrder.changed': { subject: 'shippingOrder'; data: Keyed & { orderId: string } };
  'shippingOrder.stateChanged': { subject: 'shippingOrder'; data: Keyed & { orderId: string; from: string; to: string } };
  'shippingOrderPosition.changed': { subject: 'shippingOrder'; data: Keyed & { orderPKey: string; orderId: string } };
  'movement.created': { subject: 'movement'; data: MovementData & { sourceLocation: string; target: string } };
  'movement.changed': { subject: 'movement'; data: MovementData & { from: string; fields: string[] } };
  'movement.completed': { subject: 'movement'; data: MovementData & { from: string; target: string } };
  'movement.cancelled': { subject: 'movement'; data: MovementData & { from: string } };
  // ---- routing, transport orders
  'route.created': { subject: 'route'; data: { key: string; name: string; enabled: boolean } };
  'route.changed': { subject: 'route'; data: { key: string; name: string; fields: string[]; enabled?: boolean } };
  'route.deleted': { subject: 'route'; data: { key: string; name: string } };
  'route.hopsReplaced': { subject: 'route'; data: { key: string; name: string; hops: number } };
  'routing.defaultHopsReplaced': { subject: 'routing'; data: { entries: number } };
  'transportOrder.created': { subject: 'transportOrder'; data: OrderData & { sourceLocation: string } };
  'transportOrder.started': { subject: 'transportOrder'; data: OrderData & { from: string } };
  'transportOrder.finished': { subject: 'transportOrder'; data: OrderData & { from: string } };
  'transportOrder.canceled': { subject: 'transportOrder'; data: OrderData & { from: string; message?: string | null } };
  'transportOrder.redirected': {
    subject: 'transportOrder';
    data: OrderData & { from: { targetLocation: string | null; targetLocationGroup: string | null } };
  };
  'transportOrder.changed': { subject: 'transportOrder'; data: OrderData & { from: string; fields: string[]; message?: string | null } };
  // ---- PLC
  'plcChannel.stateChanged': { subject: 'plcChannel'; data: { name: string; state: string; from: string; reason?: string } };
  'plc.bookedOntoLockedLocation': { subject: 'transportUnit'; data: { barcode: string; locationId: string; channel: string; telegram: string } };
  'plc.groupError': { subject: 'plcChannel'; data: { channel: string; name: string | null; code: string; pKey?: string } };
  // ---- operations
  'backup.created': { subject: 'backup'; data: { name: string; bytes: number } };
  'backup.deleted': { subject: 'backup'; data: { name: string } };
  'backup.failed': { subject: 'backup'; data: { error: string } };
  'alarm.raised': { subject: 'alarm'; data: AlarmData };
  'alarm.acknowledged': { subject: 'alarm'; data: AlarmData & { comment: string | null } };
  'alarm.shelved': { subject: 'alarm'; data: AlarmData & { until: string; comment: string | null } };
  'alarm.cleared': { subject: 'alarm'; data: AlarmData };
  // ---- the hub link: a command of the hub run (or refused), its answer as published
  'hubCommand.answered': { subject: 'hubCommand'; data: HubCommandAnswer };
}

export type EventType = keyof EventCatalogue;

/** An event as a service emits it: the unit of work adds id, time and actor. */
export type EventInput<T extends EventType = EventType> = T extends EventType
  ? {
      type: T;
      /** The business key of what the event is about (a barcode, a coordinate, a name, a pKey). */
      key: string;
      data: EventCatalogue[T]['data'];
      /** Why, when the caller said (a lock with a reason). */
      reason?: string | undefined;
      /** Other things the event is about besides its subject (the unit of an order, the locations of a move). */
      refs?: readonly Subject[] | undefined;
    }
  : never;

/** A recorded event. */
export type EventRecord<T extends EventType = EventType> = T extends EventType
  ? {
      /** Increasing, never reused, the same across restarts. */
      id: number;
      type: T;
      /** ISO time of the commit's unit of work. */
      at: string;
      actor: Actor;
      reason?: string;
      subject: { kind: EventCatalogue[T]['subject']; key: string };
      data: EventCatalogue[T]['data'];
    }
  : never;

/** The subject kind of each type, for the unit of work and the API description. */
export const SUBJECT_OF: { [T in EventType]: EventCatalogue[T]['subject'] } = {
  'user.created': 'user',
  'user.changed': 'user',
  'user.renamed': 'user',
  'user.passwordChanged': 'user',
  'user.locked': 'user',
  'user.unlocked': 'user',
  'user.deleted': 'user',
  'role.created': 'role',
  'role.changed': 'role',
  'role.renamed': 'role',
  'role.deleted': 'role',
  'grant.changed': 'grant',
  'apiKey.created': 'apiKey',
  'apiKey.revoked': 'apiKey',
  'preference.created': 'preference',
  'preference.changed': 'preference',
  'preference.deleted': 'preference',
  'task.created': 'task',
  'task.changed': 'task',
  'task.stateChanged': 'task',
  'location.created': 'location',
  'location.changed': 'location',
  'location.deleted': 'location',
  'location.stateChanged': 'location',
  'locationGroup.created': 'locationGroup',
  'locationGroup.changed': 'locationGroup',
  'locationGroup.deleted': 'locationGroup',
  'locationGroup.stateChanged': 'locationGroup',
  'locationType.created': 'locationType',
  'locationType.changed': 'locationType',
  'locationType.deleted': 'locationType',
  'transportUnitType.created': 'transportUnitType',
  'transportUnitType.changed': 'transportUnitType',
  'transportUnitType.deleted': 'transportUnitType',
  'transportUnit.created': 'transportUnit',
  'transportUnit.changed': 'transportUnit',
  'transportUnit.moved': 'transportUnit',
  'transportUnit.stateChanged': 'transportUnit',
  'transportUnit.deleted': 'transportUnit',
  'transportUnit.divided': 'transportUnit',
  'product.created': 'product',
  'product.changed': 'product',
  'loadUnit.reserved': 'loadUnit',
  'packagingUnit.created': 'packagingUnit',
  'packagingUnit.allocationChanged': 'packagingUnit',
  'packagingUnit.moved': 'packagingUnit',
  'receivingOrder.created': 'receivingOrder',
  'receivingOrder.canceled': 'receivingOrder',
  'receivingOrder.captured': 'receivingOrder',
  'receivingOrder.processed': 'receivingOrder',
  'shippingOrder.created': 'shippingOrder',
  'shippingOrder.changed': 'shippingOrder',
  'shippingOrder.stateChanged': 'shippingOrder',
  'shippingOrderPosition.changed': 'shippingOrder',
  'movement.created': 'movement',
  'movement.changed': 'movement',
  'movement.completed': 'movement',
  'movement.cancelled': 'movement',
  'route.created': 'route',
  'route.changed': 'route',
  'route.deleted': 'route',
  'route.hopsReplaced': 'route',
  'routing.defaultHopsReplaced': 'routing',
  'transportOrder.created': 'transportOrder',
  'transportOrder.started': 'transportOrder',
  'transportOrder.finished': 'transportOrder',
  'transportOrder.canceled': 'transportOrder',
  'transportOrder.redirected': 'transportOrder',
  'transportOrder.changed': 'transportOrder',
  'plcChannel.stateChanged': 'plcChannel',
  'plc.bookedOntoLockedLocation': 'transportUnit',
  'plc.groupError': 'plcChannel',
  'backup.created': 'backup',
  'backup.deleted': 'backup',
  'backup.failed': 'backup',
  'alarm.raised': 'alarm',
  'alarm.acknowledged': 'alarm',
  'alarm.shelved': 'alarm',
  'alarm.cleared': 'alarm',
  'hubCommand.answered': 'hubCommand',
};

export const eventTypes = (): EventType[] => Object.keys(SUBJECT_OF) as EventType[];
