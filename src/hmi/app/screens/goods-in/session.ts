import { signal } from '@preact/signals';

// What this goods-in desk keeps for itself, in the tab (sessionStorage: a reload keeps
// it, another tab or person starts afresh): the transport unit being filled, the load
// unit on it, and the list of what was captured in this session. The load unit type
// for new load units is the device's (localStorage): it is the same pallet kind all day.
// Empty until the device chooses one: the site's default applies then (capture.tsx).

const SESSION_KEY = 'wms.hmi.goodsIn';
const TYPE_KEY = 'wms.hmi.goodsIn.loadUnitType';
const KEPT = 200;

export interface Booked {
  at: string;
  orderId: string;
  sku: string;
  quantity: string;
  unit: string;
  transportUnit: string;
  loadUnit: string;
}

interface Stored {
  transportUnit: string;
  loadUnit: string;
  booked: Booked[];
}

function read(): Stored {
  try {
    const value = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Partial<Stored> | null;
    return {
      transportUnit: typeof value?.transportUnit === 'string' ? value.transportUnit : '',
      loadUnit: typeof value?.loadUnit === 'string' && value.loadUnit ? value.loadUnit : '1',
      booked: Array.isArray(value?.booked) ? value.booked.slice(0, KEPT) : [],
    };
  } catch {
    return { transportUnit: '', loadUnit: '1', booked: [] };
  }
}

const stored = read();
export const transportUnit = signal(stored.transportUnit);
export const loadUnit = signal(stored.loadUnit);
export const booked = signal<Booked[]>(stored.booked);
export const loadUnitType = signal(localStorage.getItem(TYPE_KEY) ?? '');

function save(): void {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify({ transportUnit: transportUnit.value, loadUnit: loadUnit.value, booked: booked.value } satisfies Stored));
}

export function setTransportUnit(value: string): void {
  transportUnit.value = value;
  save();
}

export function setLoadUnit(value: string): void {
  loadUnit.value = value;
  save();
}

export function setLoadUnitType(value: string): void {
  loadUnitType.value = value;
  localStorage.setItem(TYPE_KEY, value);
}

export function addBooked(entry: Booked): void {
  booked.value = [entry, ...booked.value].slice(0, KEPT);
  save();
}

export function clearBooked(): void {
  booked.value = [];
  save();
}
