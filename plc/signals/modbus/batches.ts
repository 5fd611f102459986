import type { SignalKind } from '../driver.ts';
import { MAX_READ_BITS, MAX_READ_REGISTERS, span, type ModbusAddress, type ModbusArea } from './address.ts';

// The watched points of a Modbus channel as the reads of one poll: the points of one
// area sorted by address, those close together read in one request (a gap of a few
// registers costs less than another round trip), up to the protocol's limit per request.

/** Unwatched registers (or coils) a batch may read across to join two points. */
const MAX_GAP = { bits: 32, registers: 8 } as const;

interface BatchMember {
  id: string;
  address: ModbusAddress;
  kind: SignalKind;
}

export interface Batch {
  area: ModbusArea;
  start: number;
  count: number;
  members: BatchMember[];
}

export function batchesOf(points: readonly BatchMember[]): Batch[] {
  const batches: Batch[] = [];
  for (const area of ['coil', 'di', 'hr', 'ir'] as const) {
    const bits = area === 'coil' || area === 'di';
    const limit = bits ? MAX_READ_BITS : MAX_READ_REGISTERS;
    const gap = bits ? MAX_GAP.bits : MAX_GAP.registers;
    const inArea = points.filter((p) => p.address.area === area).sort((a, b) => a.address.offset - b.address.offset);
    let current: Batch | undefined;
    for (const p of inArea) {
      const end = p.address.offset + span(p.address, p.kind);
      if (current && p.address.offset <= current.start + current.count + gap && end - current.start <= limit) {
        current.count = Math.max(current.count, end - current.start);
        current.members.push(p);
        continue;
      }
      current = { area, start: p.address.offset, count: end - p.address.offset, members: [p] };
      batches.push(current);
    }
  }
  return batches;
}

/** What a batch's request asks for, as an address: `hr:500`, or `hr:100–105` for several. */
export function batchAddress(batch: Batch): string {
  const end = batch.start + batch.count - 1;
  return end === batch.start ? `${batch.area}:${batch.start}` : `${batch.area}:${batch.start}–${end}`;
}

/** A batch's points, each read in a request of its own. */
export function oneByOne(batch: Batch): Batch[] {
  return batch.members.map((m) => ({ area: batch.area, start: m.address.offset, count: span(m.address, m.kind), members: [m] }));
}
