import type { Db } from '../../core/db.ts';
import { KeysetList, type Listing } from '../../core/listing.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../core/versioned.ts';

// All SQL of the transport-orders module (table `transport_orders`, migration 0100).

/** States in their order (the reference system numbers them 10 … 70); never backwards. */
export const ORDER_STATES = ['CREATED', 'INITIALIZED', 'STARTED', 'INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** The states that end an order. */
export const ENDED_STATES: readonly OrderState[] = ['INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED'];

/** Priority levels, lowest first. */
export const PRIORITIES = ['LOWEST', 'LOW', 'NORMAL', 'HIGH', 'HIGHEST'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** What an order row holds besides its technical fields. */
export interface OrderFields {
  transportUnitPk: string;
  /** The unit's barcode when the row was last written. */
  transportUnitBK: string;
  priority: Priority;
  state: OrderState;
  sourceLocationPk: string;
  /** Coordinate of the source location when the row was last written. */
  sourceLocation: string;
  targetLocationPk: string | null;
  targetLocation: string | null;
  targetGroupPk: string | null;
  targetLocationGroup: string | null;
  startDate: string | null;
  endDate: string | null;
  message: string | null;
}

export interface StoredOrder extends Versioned, OrderFields {}

interface Row extends VersionedRow {
  id: number;
  transport_unit_pk: string;
  transport_unit_bk: string;
  priority: Priority;
  state: OrderState;
  source_location_pk: string;
  source_location: string;
  target_location_pk: string | null;
  target_location: string | null;
  target_group_pk: string | null;
  target_location_group: string | null;
  start_date: string | null;
  end_date: string | null;
  message: string | null;
}

const SELECT = `
  SELECT id, pk, transport_unit_pk, transport_unit_bk, priority, state, source_location_pk, source_location,
         target_location_pk, target_location, target_group_pk, target_location_group,
         start_date, end_date, message, ol, create_dt, last_modified_dt
  FROM transport_orders`;

/** Highest priority first, then the oldest. */
const NEXT_FIRST = `ORDER BY CASE priority WHEN 'HIGHEST' THEN 0 WHEN 'HIGH' THEN 1 WHEN 'NORMAL' THEN 2 WHEN 'LOW' THEN 3 ELSE 4 END, id`;

const toOrder = (row: Row): StoredOrder => ({
  ...versionedFrom(row),
  transportUnitPk: row.transport_unit_pk,
  transportUnitBK: row.transport_unit_bk,
  priority: row.priority,
  state: row.state,
  sourceLocationPk: row.source_location_pk,
  sourceLocation: row.source_location,
  targetLocationPk: row.target_location_pk,
  targetLocation: row.target_location,
  targetGroupPk: row.target_group_pk,
  targetLocationGroup: row.target_location_group,
  startDate: row.start_date,
  endDate: row.end_date,
  message: row.message,
});

type Params = OrderFields & { pk: string; now: string };

/** Exactly the bound parameters (callers may pass a whole order). */
const params = (pk: string, f: OrderFields, now: string): Params => ({
  pk,
  now,
  transportUnitPk: f.transportUnitPk,
  transportUnitBK: f.transportUnitBK,
  priority: f.priority,
  state: f.state,
  sourceLocationPk: f.sourceLocationPk,
  sourceLocation: f.sourceLocation,
  targetLocationPk: f.targetLocationPk,
  targetLocation: f.targetLocation,
  targetGroupPk: f.targetGroupPk,
  targetLocationGroup: f.targetLocationGroup,
  startDate: f.startDate,
  endDate: f.endDate,
  message: f.message,
});

/** A state filter: `null` = any state, else a JSON array of the accepted ones. */
const list = (values: readonly string[] | undefined): string | null => (values === undefined ? null : JSON.stringify(values));

// Lists of orders, oldest first (`id` orders by creation), a page or a chunk at a time
// (core/listing.ts). Orders pile up with the site's history: without `limit` the lists
// stream from a snapshot.
const oldestFirst = (where: string) =>
  new KeysetList<Row>({ sql: `${SELECT} WHERE ${where} AND id > @k0 ORDER BY id LIMIT @limit`, keyOf: (row) => [row.id], first: [0] });
const EVERY_ORDER = oldestFirst('1');
const STATES = '(@states IS NULL OR state IN (SELECT value FROM json_each(@states)))';
/** Through the index of the state, in id order; several states are merged by a sort of the rows after the key. */
const IN_STATE = oldestFirst('state = @state');
const IN_STATES = oldestFirst('state IN (SELECT value FROM json_each(@states))');
const OF_UNIT = oldestFirst(`transport_unit_pk = @unit AND ${STATES}`);
const OF_BARCODE = oldestFirst(`transport_unit_bk = @barcode AND ${STATES}`);

export function createTransportOrderStore(db: Db, reads?: ReadPool) {
  const listed = (list: KeysetList<Row>, params: Record<string, unknown>): Listing<StoredOrder> => list.listing(db, params, (rows) => rows.map(toOrder), reads);
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE pk = ?`),
    started: db.prepare<[string], Row>(`${SELECT} WHERE transport_unit_pk = ? AND state = 'STARTED'`),
    nextInitialized: db.prepare<[string], Row>(`${SELECT} WHERE transport_unit_pk = ? AND state = 'INITIALIZED' ${NEXT_FIRST} LIMIT 1`),
    open: db.prepare<[string], Row>(`${SELECT} WHERE transport_unit_pk = ? AND state IN ('CREATED', 'INITIALIZED', 'STARTED') ORDER BY id`),
    insert: db.prepare<[Params]>(
      `INSERT INTO transport_orders (pk, transport_unit_pk, transport_unit_bk, priority, state, source_location_pk,
         source_location, target_location_pk, target_location, target_group_pk, target_location_group,
         start_date, end_date, message, ol, create_dt, last_modified_dt)
       VALUES (@pk, @transportUnitPk, @transportUnitBK, @priority, @state, @sourceLocationPk,
         @sourceLocation, @targetLocationPk, @targetLocation, @targetGroupPk, @targetLocationGroup,
         @startDate, @endDate, @message, 0, @now, @now)`,
    ),
    update: db.prepare<[Params]>(
      `UPDATE transport_orders SET transport_unit_pk = @transportUnitPk, transport_unit_bk = @transportUnitBK,
         priority = @priority, state = @state, source_location_pk = @sourceLocationPk, source_location = @sourceLocation,
         target_location_pk = @targetLocationPk, target_location = @targetLocation, target_group_pk = @targetGroupPk,
         target_location_group = @targetLocationGroup, start_date = @startDate, end_date = @endDate, message = @message,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
  };
  const one = (row: Row | undefined) => (row ? toOrder(row) : undefined);

  return {
    /** Every order, oldest first: pages, or the whole list streamed. */
    list: (): Listing<StoredOrder> => listed(EVERY_ORDER, {}),
    byPk: (pk: string): StoredOrder | undefined => one(s.byPk.get(pk)),
    /** Orders in one of the states, oldest first. */
    inStates: (states: readonly OrderState[]): Listing<StoredOrder> =>
      listed(states.length === 1 ? IN_STATE : IN_STATES, { state: states[0], states: JSON.stringify(states) }),
    /** The orders of a transport unit (by its pKey), oldest first; `undefined` states = any. */
    forUnit: (unitPk: string, states?: readonly OrderState[]): Listing<StoredOrder> => listed(OF_UNIT, { unit: unitPk, states: list(states) }),
    /** The orders recorded for a barcode (of a unit that no longer exists), oldest first. */
    forBarcode: (barcode: string, states?: readonly OrderState[]): Listing<StoredOrder> => listed(OF_BARCODE, { barcode, states: list(states) }),
    /** The unit's STARTED order (the unique index allows one at most). */
    startedOf: (unitPk: string): StoredOrder | undefined => one(s.started.get(unitPk)),
    /** The unit's INITIALIZED order to start next: highest priority, then oldest. */
    nextInitializedOf: (unitPk: string): StoredOrder | undefined => one(s.nextInitialized.get(unitPk)),
    /** The unit's orders that have not ended, oldest first. */
    openOf: (unitPk: string): StoredOrder[] => s.open.all(unitPk).map(toOrder),
    insert: (pk: string, fields: OrderFields, now: string): void => {
      s.insert.run(params(pk, fields, now));
    },
    /** Writes every field; raises `ol` by one. */
    update: (pk: string, fields: OrderFields, now: string): void => {
      s.update.run(params(pk, fields, now));
    },
  };
}

export type TransportOrderStore = ReturnType<typeof createTransportOrderStore>;
