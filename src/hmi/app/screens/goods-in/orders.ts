import { signal } from '@preact/signals';
import { ApiFailure, get, page } from '../../api.ts';
import type { LiveEvent } from '../../live.ts';
import type * as Wire from '../../../../contract/replies.ts';

// Receiving orders as goods-in uses them (docs/receiving.md): found by their orderId
// (scanned from the delivery note) or chosen from the open ones. The list of all
// orders is oldest first and keeps the processed ones, so the open ones are collected
// page by page (`limit`/`after`), a few pages at a time; an event names one order,
// which alone is read again.

export type Capture = Position['captures'][number];

export type Position = Wire.ReceivingOrder['positions'][number];

/** A receiving order as the API sends it. */
export type ReceivingOrder = Wire.ReceivingOrder;

export const ORDER_EVENTS = ['receivingOrder.created', 'receivingOrder.captured', 'receivingOrder.processed', 'receivingOrder.canceled'] as const;

export const isOpen = (o: ReceivingOrder): boolean => o.state === 'CREATED' || o.state === 'PROCESSING';

/** The chip of an order's or a position's state (styles/tones.css): processed filled, cancelled out of the way. */
export const stateChip = (state: string): string => `chip gi-state${state === 'PROCESSED' ? ' fill-ok' : state === 'CANCELED' ? ' quiet' : ''}`;

export const pKeyOfEvent = (event: LiveEvent<(typeof ORDER_EVENTS)[number]>): string => event.data.pKey;

export const orderById = async (orderId: string): Promise<ReceivingOrder> => (await get<ReceivingOrder>('/v1/receiving-orders', { orderId })).body;

export const orderByPKey = async (pKey: string): Promise<ReceivingOrder> =>
  (await get<ReceivingOrder>(`/v1/receiving-orders/${encodeURIComponent(pKey)}`)).body;

// ---- the open orders, for choosing one --------------------------------------------

const PAGE = 100;
/** Pages read per step: enough to find the open ones behind a long tail of processed ones. */
const PAGES_PER_STEP = 10;
/** A step stops once it has found this many more open orders. */
const ENOUGH = 30;

export const openOrders = signal<ReceivingOrder[] | undefined>(undefined);
/** Cursor of the next page; undefined when the end was reached. */
export const openNext = signal<string | undefined>(undefined);
export const openError = signal<unknown>(undefined);
export const openBusy = signal(false);

/** Reads from the start (`fresh`) or on from the cursor, until enough open orders are found. */
export async function readOpenOrders(fresh: boolean): Promise<void> {
  if (openBusy.value) return;
  openBusy.value = true;
  try {
    let after = fresh ? undefined : openNext.value;
    const found: ReceivingOrder[] = fresh ? [] : [...(openOrders.value ?? [])];
    const target = found.length + ENOUGH;
    for (let n = 0; n < PAGES_PER_STEP; n++) {
      const next = await page<ReceivingOrder>('/v1/receiving-orders', {}, PAGE, after);
      found.push(...next.items.filter(isOpen));
      after = next.next;
      if (!after || found.length >= target) break;
    }
    openOrders.value = found;
    openNext.value = after;
    openError.value = undefined;
  } catch (err) {
    openError.value = err;
  } finally {
    openBusy.value = false;
  }
}

/** An order an event named: read again, kept while open, dropped when closed or gone. */
export async function refreshOpenOrder(pKey: string): Promise<void> {
  const list = openOrders.value;
  if (!list) return;
  let order: ReceivingOrder | undefined;
  try {
    order = await orderByPKey(pKey);
  } catch (err) {
    if (!(err instanceof ApiFailure && err.status === 404)) return;
  }
  const rest = (openOrders.value ?? []).filter((o) => o.pKey !== pKey);
  const known = list.some((o) => o.pKey === pKey);
  // A new order is at the end of the list: shown now only when the end was read.
  const fresh = order;
  if (fresh && isOpen(fresh) && (known || openNext.value === undefined)) {
    openOrders.value = known ? (openOrders.value ?? []).map((o) => (o.pKey === pKey ? fresh : o)) : [...rest, fresh];
  } else openOrders.value = rest;
}
