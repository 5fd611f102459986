import { get } from '../../api.ts';
import { keptList } from '../../lists/live-list.ts';
import { pagesOf } from '../../lists/pages.ts';
import type { LiveEvent } from '../../live.ts';
import type * as Wire from '../../../../contract/replies.ts';

// Receiving orders as goods-in uses them (docs/receiving.md): found by their orderId
// (scanned from the delivery note) or chosen from the open ones, a live list; an event
// names one order, which alone is read again.

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

/**
 * The open orders, kept while other screens are shown. The list of all orders is
 * oldest first (by creation, then orderId) and keeps the processed ones, so the open ones
 * are collected a few pages of 100 at a time until 30 more are found; an order that
 * closes leaves, a new one comes in at the end once the end was read.
 */
export const openOrderList = () =>
  keptList<ReceivingOrder>('goods-in.open-orders', {
    read: pagesOf('/v1/receiving-orders'),
    readOne: orderByPKey,
    keyOf: (o) => o.pKey,
    versionOf: (o) => o.ol,
    order: (a, b) => a.createDt.localeCompare(b.createDt) || (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0),
    shows: isOpen,
    pageSize: 100,
    step: 30,
    maxPages: 10,
  });
