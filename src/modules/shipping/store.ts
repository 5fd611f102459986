import type { Db } from '../../core/db.ts';
import { KeysetList, prepared, type Listing } from '../../core/listing.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { newPKey } from '../../core/ids.ts';
import { quantityFromColumns, type Quantity } from '../../core/quantity.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../core/versioned.ts';

// All SQL of the shipping module: orders and their positions (positions in the order they were sent).

export const ORDER_STATES = [
  'CREATED',
  'AVAILABLE',
  'PROCESSING',
  'PROCESSED',
  'COMMISSIONING',
  'ON_TRUCK',
  'FAILURE_WMS',
  'FAILURE_TMS',
  'COMPLETED',
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export interface OrderFields {
  orderId: string;
  customerOrderId: string | null;
  customerNo: string | null;
  state: OrderState;
  startMode: 'MANUAL' | 'AUTOMATIC' | null;
  shippingType: string | null;
  priority: number | null;
  latestDueDate: string | null;
  startDate: string | null;
  details: Record<string, unknown>;
}

export interface PositionFields {
  pos: string;
  kind: 'PRODUCT' | 'TRANSPORT_UNIT';
  state: OrderState;
  priority: number | null;
  details: Record<string, unknown>;
  targetName: string | null;
  productPk: string | null;
  qtyOrdered: Quantity | null;
  qtyCrossdock: Quantity | null;
  transportUnitBK: string | null;
  transportUnitTypeName: string | null;
}

export interface Position extends Versioned, PositionFields {
  orderPk: string;
  orderId: string;
}

export interface ShippingOrder extends Versioned, OrderFields {
  positions: Position[];
}

interface OrderRow extends VersionedRow {
  order_id: string;
  customer_order_id: string | null;
  customer_no: string | null;
  state: OrderState;
  start_mode: 'MANUAL' | 'AUTOMATIC' | null;
  shipping_type: string | null;
  priority: number | null;
  latest_due_date: string | null;
  start_date: string | null;
  details: string;
}

interface PositionRow extends VersionedRow {
  order_pk: string;
  order_id: string;
  pos: string;
  kind: 'PRODUCT' | 'TRANSPORT_UNIT';
  state: OrderState;
  priority: number | null;
  details: string;
  target_name: string | null;
  product_pk: string | null;
  qty_ordered_family: string | null;
  qty_ordered_unit: string | null;
  qty_ordered_base: number | null;
  qty_crossdock_family: string | null;
  qty_crossdock_unit: string | null;
  qty_crossdock_base: number | null;
  transport_unit_bk: string | null;
  transport_unit_type_name: string | null;
}

const ORDER_COLUMNS = `pk, order_id, customer_order_id, customer_no, state, start_mode, shipping_type, priority,
  latest_due_date, start_date, details, ol, create_dt, last_modified_dt`;
const POSITION_SELECT = `
  SELECT p.pk, p.order_pk, o.order_id, p.pos, p.kind, p.state, p.priority, p.details, p.target_name, p.product_pk,
         p.qty_ordered_family, p.qty_ordered_unit, p.qty_ordered_base, p.qty_crossdock_family, p.qty_crossdock_unit,
         p.qty_crossdock_base, p.transport_unit_bk, p.transport_unit_type_name, p.ol, p.create_dt, p.last_modified_dt
  FROM shipping_order_positions p JOIN shipping_orders o ON o.pk = p.order_pk`;

const quantityOrNull = (family: string | null, unit: string | null, base: number | null) =>
  family !== null && unit !== null && base !== null ? quantityFromColumns(family, unit, base) : null;

const toPosition = (row: PositionRow): Position => ({
  ...versionedFrom(row),
  orderPk: row.order_pk,
  orderId: row.order_id,
  pos: row.pos,
  kind: row.kind,
  state: row.state,
  priority: row.priority,
  details: JSON.parse(row.details) as Record<string, unknown>,
  targetName: row.target_name,
  productPk: row.product_pk,
  qtyOrdered: quantityOrNull(row.qty_ordered_family, row.qty_ordered_unit, row.qty_ordered_base),
  qtyCrossdock: quantityOrNull(row.qty_crossdock_family, row.qty_crossdock_unit, row.qty_crossdock_base),
  transportUnitBK: row.transport_unit_bk,
  transportUnitTypeName: row.transport_unit_type_name,
});

const orderParams = (f: OrderFields) => ({ ...f, details: JSON.stringify(f.details) });
const positionParams = (f: PositionFields) => ({
  pos: f.pos,
  kind: f.kind,
  state: f.state,
  priority: f.priority,
  details: JSON.stringify(f.details),
  targetName: f.targetName,
  productPk: f.productPk,
  qtyOrderedFamily: f.qtyOrdered?.family ?? null,
  qtyOrderedUnit: f.qtyOrdered?.unit ?? null,
  qtyOrderedBase: f.qtyOrdered?.base ?? null,
  qtyCrossdockFamily: f.qtyCrossdock?.family ?? null,
  qtyCrossdockUnit: f.qtyCrossdock?.unit ?? null,
  qtyCrossdockBase: f.qtyCrossdock?.base ?? null,
  transportUnitBK: f.transportUnitBK,
  transportUnitTypeName: f.transportUnitTypeName,
});

// Orders oldest first (by create_dt, then orderId), a page or a chunk at a time
// (core/listing.ts). Shipping orders pile up with the site's history: without `limit`
// the lists stream from a snapshot.
const oldestFirst = (where: string) =>
  new KeysetList<OrderRow>({
    sql: `SELECT ${ORDER_COLUMNS} FROM shipping_orders WHERE ${where} AND (create_dt, order_id) > (@k0, @k1)
          ORDER BY create_dt, order_id LIMIT @limit`,
    keyOf: (row) => [row.create_dt, row.order_id],
    first: ['', ''],
  });
/** Through the index (create_dt, order_id) (migration 0150). */
const EVERY_ORDER = oldestFirst('1');
/** Through the index (state, create_dt, order_id); several states are merged by a sort of the rows after the key. */
const IN_STATE = oldestFirst('state = @state');
const IN_STATES = oldestFirst('state IN (SELECT value FROM json_each(@states))');
/** The positions of the orders of a page or chunk, read on its connection. */
const POSITIONS_OF = `${POSITION_SELECT} WHERE p.order_pk IN (SELECT value FROM json_each(?)) ORDER BY p.order_pk, p.rowid`;

export function createShippingStore(db: Db, reads?: ReadPool) {
  const s = {
    byPk: db.prepare<[string], OrderRow>(`SELECT ${ORDER_COLUMNS} FROM shipping_orders WHERE pk = ?`),
    byOrderId: db.prepare<[string], OrderRow>(`SELECT ${ORDER_COLUMNS} FROM shipping_orders WHERE order_id = ?`),
    positionsOf: db.prepare<[string], PositionRow>(`${POSITION_SELECT} WHERE p.order_pk = +? ORDER BY p.rowid`),
    positionByPk: db.prepare<[string], PositionRow>(`${POSITION_SELECT} WHERE p.pk = +?`),
    insertOrder: db.prepare(
      `INSERT INTO shipping_orders (pk, order_id, customer_order_id, customer_no, state, start_mode, shipping_type,
         priority, latest_due_date, start_date, details, ol, create_dt, last_modified_dt)
       VALUES (@pk, @orderId, @customerOrderId, @customerNo, @state, @startMode, @shippingType, @priority,
         @latestDueDate, @startDate, @details, 0, @now, @now)`,
    ),
    updateOrder: db.prepare(
      `UPDATE shipping_orders SET customer_order_id = @customerOrderId, customer_no = @customerNo, state = @state,
         start_mode = @startMode, shipping_type = @shippingType, priority = @priority,
         latest_due_date = @latestDueDate, start_date = @startDate, details = @details,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    insertPosition: db.prepare(
      `INSERT INTO shipping_order_positions (pk, order_pk, pos, kind, state, priority, details, target_name, product_pk,
         qty_ordered_family, qty_ordered_unit, qty_ordered_base, qty_crossdock_family, qty_crossdock_unit,
         qty_crossdock_base, transport_unit_bk, transport_unit_type_name, ol, create_dt, last_modified_dt)
       VALUES (@pk, @orderPk, @pos, @kind, @state, @priority, @details, @targetName, @productPk,
         @qtyOrderedFamily, @qtyOrderedUnit, @qtyOrderedBase, @qtyCrossdockFamily, @qtyCrossdockUnit,
         @qtyCrossdockBase, @transportUnitBK, @transportUnitTypeName, 0, @now, @now)`,
    ),
    updatePosition: db.prepare(
      `UPDATE shipping_order_positions SET state = @state, priority = @priority, details = @details,
         target_name = @targetName, qty_ordered_family = @qtyOrderedFamily, qty_ordered_unit = @qtyOrderedUnit,
         qty_ordered_base = @qtyOrderedBase, qty_crossdock_family = @qtyCrossdockFamily,
         qty_crossdock_unit = @qtyCrossdockUnit, qty_crossdock_base = @qtyCrossdockBase,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
  };

  const toOrder = (row: OrderRow, positions: Position[]): ShippingOrder => ({
    ...versionedFrom(row),
    orderId: row.order_id,
    customerOrderId: row.customer_order_id,
    customerNo: row.customer_no,
    state: row.state,
    startMode: row.start_mode,
    shippingType: row.shipping_type,
    priority: row.priority,
    latestDueDate: row.latest_due_date,
    startDate: row.start_date,
    details: JSON.parse(row.details) as Record<string, unknown>,
    positions,
  });
  const withPositions = (row: OrderRow | undefined) => (row ? toOrder(row, s.positionsOf.all(row.pk).map(toPosition)) : undefined);

  return {
    byPk: (pk: string) => withPositions(s.byPk.get(pk)),
    byOrderId: (orderId: string) => withPositions(s.byOrderId.get(orderId)),
    /**
     * Orders in these states (every state: all orders), oldest first; positions only
     * when asked for (the minimum representation needs none): pages, or the whole list streamed.
     */
    inStates(states: readonly OrderState[], withPositionList: boolean): Listing<ShippingOrder> {
      const every = ORDER_STATES.every((state) => states.includes(state));
      const list = every ? EVERY_ORDER : states.length === 1 ? IN_STATE : IN_STATES;
      const orders = (rows: OrderRow[], on: Db): ShippingOrder[] => {
        const byOrder = new Map<string, Position[]>();
        if (withPositionList && rows.length > 0) {
          for (const row of prepared(on, POSITIONS_OF).all(JSON.stringify(rows.map((r) => r.pk))) as PositionRow[]) {
            const list = byOrder.get(row.order_pk) ?? [];
            list.push(toPosition(row));
            byOrder.set(row.order_pk, list);
          }
        }
        return rows.map((row) => toOrder(row, byOrder.get(row.pk) ?? []));
      };
      return list.listing(db, { state: states[0], states: JSON.stringify(states) }, orders, reads);
    },
    positionByPk(pk: string): Position | undefined {
      const row = s.positionByPk.get(pk);
      return row ? toPosition(row) : undefined;
    },
    insertOrder(fields: OrderFields, now: string): string {
      const pk = newPKey();
      s.insertOrder.run({ ...orderParams(fields), pk, now });
      return pk;
    },
    updateOrder: (pk: string, fields: OrderFields, now: string) => s.updateOrder.run({ ...orderParams(fields), pk, now }),
    insertPosition(orderPk: string, fields: PositionFields, now: string): string {
      const pk = newPKey();
      s.insertPosition.run({ ...positionParams(fields), pk, orderPk, now });
      return pk;
    },
    updatePosition: (pk: string, fields: PositionFields, now: string) => s.updatePosition.run({ ...positionParams(fields), pk, now }),
  };
}

export type ShippingStore = ReturnType<typeof createShippingStore>;
