// The site of the mixed-load benchmark, as coordinates: a conveyor network the routes
// run over and rack locations in areas of 100 aisles × 100 × 10, numbered so that any
// count from 10,000 to 1,000,000 and beyond fills areas in order. Shared by the
// fixture builder, the load generators and the wrk scripts, which pick coordinates
// that exist without asking the appliance.

import type { Coordinate } from '../../src/core/coordinate.ts';

/** Conveyor locations `CONV/0001/<x>/0000/0000`: sources and hops of the bulk routes. */
export const CONVEYORS = 2000;
const CONVEYOR_AREA = 'CONV';
/** Rack locations per area: aisles × x × y. */
const PER_AREA = 100 * 100 * 10;

const pad = (n: number, width = 4) => String(n).padStart(width, '0');

export type { Coordinate };

export const conveyor = (i: number): Coordinate => ({ area: CONVEYOR_AREA, aisle: '0001', x: pad(i + 1), y: '0000', z: '0000' });

/** The n-th rack location (0-based): `AR01/0001/0001/0001/0000`, …, y fastest. */
export function rack(n: number): Coordinate {
  return {
    area: `AR${pad(Math.floor(n / PER_AREA) + 1, 2)}`,
    aisle: pad((Math.floor(n / 1000) % 100) + 1),
    x: pad((Math.floor(n / 10) % 100) + 1),
    y: pad((n % 10) + 1),
    z: '0000',
  };
}

export const locationId = (c: Coordinate) => `${c.area}/${c.aisle}/${c.x}/${c.y}/${c.z}`;

/** The location group of a rack: one per aisle, below one per area. */
export const aisleGroup = (c: Coordinate) => `${c.area}-${c.aisle}`;

/** Areas and aisles the first `racks` rack locations fill. */
export function rackAreas(racks: number): { areas: number; aislesOfLastArea: number } {
  const areas = Math.ceil(racks / PER_AREA);
  const inLast = racks - (areas - 1) * PER_AREA;
  return { areas, aislesOfLastArea: Math.ceil(inLast / 1000) };
}
