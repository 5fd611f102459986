import type { Db } from '../../core/db.ts';
import { KeysetList, prepared, type Listing } from '../../core/listing.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { newPKey } from '../../core/ids.ts';
import { quantityFromColumns, type Quantity } from '../../core/quantity.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../core/versioned.ts';

// All SQL of the receiving module (tables `receiving_orders`,
// `receiving_order_positions`, `receiving_captures`, migration 0080). Products are
// referenced by pk only; their SKUs come from the inventory service.

/** Order states; the spec's "in process" is PROCESSING. */
export const ORDER_STATES = ['CREATED', 'PROCESSING', 'PROCESSED', 'CANCELED'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export const POSITION_STATES = ['OPEN', 'PROCESSING', 'PROCESSED', 'CANCELED'] as const;
type PositionState = (typeof POSITION_STATES)[number];

/** One booking of captured goods against a position. */
export interface Capture {
  pk: string;
  packagingUnitPk: string;
  transportUnitBK: string;
  luPos: string;
  /** The part of the captured quantity booked against this position. */
  quantity: Quantity;
  createDt: string;
}

export interface Position extends Versioned {
  orderPk: string;
  seq: number;
  positionId: string;
  state: PositionState;
  productPk: string;
  quantityExpected: Quantity;
  /** Base units received so far (of the expected quantity's family). */
  receivedBase: number;
  captures: Capture[];
}

export interface ReceivingOrder extends Versioned {
  orderId: string;
  state: OrderState;
  details: Record<string, unknown>;
  positions: Position[];
}

interface NewPosition {
  positionId: string;
  productPk: string;
  quantityExpected: Quantity;
}

interface NewCapture {
  orderPk: string;
  positionPk: string;
  packagingUnitPk: string;
  transportUnitBK: string;
  luPos: string;
  quantity: Quantity;
}

interface OrderRow extends VersionedRow {
  order_id: string;
  state: OrderState;
  details: string;
}

interface PositionRow extends VersionedRow {
  order_pk: string;
  seq: number;
  position_id: string;
  state: PositionState;
  product_pk: string;
  qty_expected_family: string;
  qty_expected_unit: string;
  qty_expected_base: number;
  qty_received_base: number;
}

interface CaptureRow {
  pk: string;
  position_pk: string;
  packaging_unit_pk: string;
  transport_unit_bk: string;
  lu_pos: string;
  quantity_family: string;
  quantity_unit: string;
  quantity_base: number;
  create_dt: string;
}

const ORDER_SELECT = 'SELECT pk, order_id, state, details, ol, create_dt, last_modified_dt FROM receiving_orders';
const POSITION_SELECT = `
  SELECT pk, order_pk, seq, position_id, state, product_pk, qty_expected_family, qty_expected_unit, qty_expected_base,
         qty_received_base, ol, create_dt, last_modified_dt
  FROM receiving_order_positions`;
const CAPTURE_SELECT = `
  SELECT pk, position_pk, packaging_unit_pk, transport_unit_bk, lu_pos, quantity_family, quantity_unit, quantity_base, create_dt
  FROM receiving_captures`;

const toCapture = (row: CaptureRow): Capture => ({
  pk: row.pk,
  packagingUnitPk: row.packaging_unit_pk,
  transportUnitBK: row.transport_unit_bk,
  luPos: row.lu_pos,
  quantity: quantityFromColumns(row.quantity_family, row.quantity_unit, row.quantity_base),
  createDt: row.create_dt,
});

const toPosition = (row: PositionRow, captures: Capture[]): Position => ({
  ...versionedFrom(row),
  orderPk: row.order_pk,
  seq: row.seq,
  positionId: row.position_id,
  state: row.state,
  productPk: row.product_pk,
  quantityExpected: quantityFromColumns(row.qty_expected_family, row.qty_expected_unit, row.qty_expected_base),
  receivedBase: row.qty_received_base,
  captures,
});

const toOrder = (row: OrderRow, positions: Position[]): ReceivingOrder => ({
  ...versionedFrom(row),
  orderId: row.order_id,
  state: row.state,
  details: JSON.parse(row.details) as Record<string, unknown>,
  positions,
});

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

/**
 * Every order oldest first (create_dt, then orderId), a page or a chunk at a time
 * (core/listing.ts), through the index of that order. Receiving orders pile up with the
 * site's history: the whole list streams from a snapshot.
 */
const EVERY_ORDER = new KeysetList<OrderRow>({
  sql: `${ORDER_SELECT} WHERE (create_dt, order_id) > (@k0, @k1) ORDER BY create_dt, order_id LIMIT @limit`,
  keyOf: (row) => [row.create_dt, row.order_id],
  first: ['', ''],
});
/** Positions and captures of the orders of a page or chunk, read on its connection. */
const POSITIONS_OF = `${POSITION_SELECT} WHERE order_pk IN (SELECT value FROM json_each(?)) ORDER BY order_pk, seq`;
const CAPTURES_OF = `${CAPTURE_SELECT} WHERE order_pk IN (SELECT value FROM json_each(?)) ORDER BY order_pk, seq`;

/** Orders with their positions and those with their captures: three statements, whatever the number of orders. */
function withAllPositions(rows: OrderRow[], db: Db): ReceivingOrder[] {
  if (rows.length === 0) return [];
  const pks = JSON.stringify(rows.map((row) => row.pk));
  const captures = groupBy(prepared(db, CAPTURES_OF).all(pks) as CaptureRow[], (c) => c.position_pk);
  const positions = groupBy(
    (prepared(db, POSITIONS_OF).all(pks) as PositionRow[]).map((p) => toPosition(p, (captures.get(p.pk) ?? []).map(toCapture))),
    (p) => p.orderPk,
  );
  return rows.map((row) => toOrder(row, positions.get(row.pk) ?? []));
}

export function createReceivingStore(db: Db, reads?: ReadPool) {
  const s = {
    byPk: db.prepare<[string], OrderRow>(`${ORDER_SELECT} WHERE pk = ?`),
    byOrderId: db.prepare<[string], OrderRow>(`${ORDER_SELECT} WHERE order_id = ?`),
    positionsOf: db.prepare<[string], PositionRow>(`${POSITION_SELECT} WHERE order_pk = ? ORDER BY seq`),
    capturesOf: db.prepare<[string], CaptureRow>(`${CAPTURE_SELECT} WHERE order_pk = ? ORDER BY seq`),
    nextCaptureSeq: db.prepare<[string], number>('SELECT COALESCE(MAX(seq), 0) + 1 FROM receiving_captures WHERE order_pk = ?').pluck(),
    insertOrder: db.prepare(
      `INSERT INTO receiving_orders (pk, order_id, state, details, ol, create_dt, last_modified_dt)
       VALUES (@pk, @orderId, 'CREATED', @details, 0, @now, @now)`,
    ),
    setOrderState: db.prepare('UPDATE receiving_orders SET state = @state, ol = ol + 1, last_modified_dt = @now WHERE pk = @pk'),
    insertPosition: db.prepare(
      `INSERT INTO receiving_order_positions (pk, order_pk, seq, position_id, state, product_pk,
         qty_expected_family, qty_expected_unit, qty_expected_base, qty_received_base, ol, create_dt, last_modified_dt)
       VALUES (@pk, @orderPk, @seq, @positionId, 'OPEN', @productPk,
         @family, @unit, @base, 0, 0, @now, @now)`,
    ),
    receive: db.prepare(
      `UPDATE receiving_order_positions SET qty_received_base = @receivedBase, state = @state, ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    cancelPositions: db.prepare(`UPDATE receiving_order_positions SET state = 'CANCELED', ol = ol + 1, last_modified_dt = @now WHERE order_pk = @orderPk`),
    insertCapture: db.prepare(
      `INSERT INTO receiving_captures (pk, order_pk, position_pk, seq, packaging_unit_pk, transport_unit_bk, lu_pos,
         quantity_family, quantity_unit, quantity_base, create_dt)
       VALUES (@pk, @orderPk, @positionPk, @seq, @packagingUnitPk, @transportUnitBK, @luPos,
         @family, @unit, @base, @now)`,
    ),
  };

  function withPositions(row: OrderRow | undefined): ReceivingOrder | undefined {
    if (!row) return undefined;
    const captures = groupBy(s.capturesOf.all(row.pk), (c) => c.position_pk);
    const positions = s.positionsOf.all(row.pk).map((p) => toPosition(p, (captures.get(p.pk) ?? []).map(toCapture)));
    return toOrder(row, positions);
  }

  return {
    byPk: (pk: string) => withPositions(s.byPk.get(pk)),
    byOrderId: (orderId: string) => withPositions(s.byOrderId.get(orderId)),
    /** Every order with its positions, oldest first: pages, or the whole list streamed. */
    list: (): Listing<ReceivingOrder> => EVERY_ORDER.listing(db, {}, withAllPositions, reads),
    insertOrder(orderId: string, details: Record<string, unknown>, positions: readonly NewPosition[], now: string): string {
      const pk = newPKey();
      s.insertOrder.run({ pk, orderId, details: JSON.stringify(details), now });
      positions.forEach((p, i) =>
        s.insertPosition.run({
          pk: newPKey(),
          orderPk: pk,
          seq: i + 1,
          positionId: p.positionId,
          productPk: p.productPk,
          family: p.quantityExpected.family,
          unit: p.quantityExpected.unit,
          base: p.quantityExpected.base,
          now,
        }),
      );
      return pk;
    },
    setOrderState: (pk: string, state: OrderState, now: string) => s.setOrderState.run({ pk, state, now }),
    /** Books received base units on a position and sets its state. */
    receive: (pk: string, receivedBase: number, state: PositionState, now: string) => s.receive.run({ pk, receivedBase, state, now }),
    cancelPositions: (orderPk: string, now: string) => s.cancelPositions.run({ orderPk, now }),
    insertCapture(capture: NewCapture, now: string): string {
      const pk = newPKey();
      s.insertCapture.run({
        pk,
        orderPk: capture.orderPk,
        positionPk: capture.positionPk,
        seq: s.nextCaptureSeq.get(capture.orderPk)!,
        packagingUnitPk: capture.packagingUnitPk,
        transportUnitBK: capture.transportUnitBK,
        luPos: capture.luPos,
        family: capture.quantity.family,
        unit: capture.quantity.unit,
        base: capture.quantity.base,
        now,
      });
      return pk;
    },
  };
}

export type ReceivingStore = ReturnType<typeof createReceivingStore>;
