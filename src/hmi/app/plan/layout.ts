// Where each location of the plan is drawn, from its coordinate AREA/AISLE/X/Y/Z alone,
// so that the same locations always give the same picture on every screen and panel:
// an area is a band, each aisle of it a row, X runs along the row, Y stacks upwards
// inside the row (rack levels: the higher the level, the higher it is drawn) and Z sits
// side by side within an X column (the sides or depths of a rack). A conveyor (one Y,
// one Z) is thus a single line of boxes, a rack a block of them. Bands are packed in
// shelves, left to right, so that small areas sit side by side on a wide screen.

/** A location's box: its side and the distance from one box to the next. */
export const BOX = 32;
const PITCH = 44;
const ROW_GAP = 12;
/** Room at the left of a band for the aisle names, and above it for the band's name. */
export const ROW_LABEL = 52;
export const BAND_HEAD = 26;
const BAND_PAD = 10;
const BAND_GAP = 24;

interface Placed {
  id: string;
  /** Top left corner of its box, in plan units. */
  x: number;
  y: number;
}

export interface Row {
  aisle: string;
  /** Top of the row and its height, in plan units. */
  y: number;
  h: number;
}

interface Band {
  area: string;
  /** The location groups of its locations, for its heading. */
  groups: string[];
  x: number;
  y: number;
  w: number;
  h: number;
  rows: Row[];
}

export interface Layout {
  placed: ReadonlyMap<string, Placed>;
  bands: readonly Band[];
  width: number;
  height: number;
}

/** Numbers by value, everything else by text: `0002` before `0010`, `A` before `B`. */
export function comparePart(a: string, b: string): number {
  const na = /^\d+$/.test(a);
  const nb = /^\d+$/.test(b);
  if (na && nb) return Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0);
  if (na !== nb) return na ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const sortedDistinct = (values: Iterable<string>) => [...new Set(values)].sort(comparePart);

/** The five parts of a coordinate; anything else is drawn as an area of its own. */
export function partsOf(id: string): [string, string, string, string, string] {
  const p = id.split('/');
  return p.length === 5 ? (p as [string, string, string, string, string]) : [id, '', '', '', ''];
}

interface Box {
  band: Band;
  cells: Placed[];
}

export function computeLayout(locations: readonly { id: string; group?: string | undefined }[]): Layout {
  const byArea = new Map<string, { id: string; group?: string | undefined; p: string[] }[]>();
  for (const l of locations) {
    const p = partsOf(l.id);
    let list = byArea.get(p[0]);
    if (!list) byArea.set(p[0], (list = []));
    list.push({ id: l.id, group: l.group, p });
  }
  const boxes: Box[] = [];
  for (const area of sortedDistinct(byArea.keys())) {
    const list = byArea.get(area)!;
    // X and Z are shared by the whole area, so that X columns line up from aisle to aisle.
    const xs = sortedDistinct(list.map((l) => l.p[2]!));
    const zs = sortedDistinct(list.map((l) => l.p[4]!));
    const xIndex = new Map(xs.map((x, i) => [x, i]));
    const zIndex = new Map(zs.map((z, i) => [z, i]));
    const aisles = sortedDistinct(list.map((l) => l.p[1]!));
    const rows: Row[] = [];
    const cells: Placed[] = [];
    let y = BAND_HEAD;
    for (const aisle of aisles) {
      const inAisle = list.filter((l) => l.p[1] === aisle);
      // Levels per aisle: a conveyor aisle beside a rack keeps its single line.
      const ys = sortedDistinct(inAisle.map((l) => l.p[3]!));
      const yIndex = new Map(ys.map((v, i) => [v, i]));
      const h = ys.length * PITCH;
      rows.push({ aisle, y, h });
      for (const l of inAisle) {
        const col = xIndex.get(l.p[2]!)! * zs.length + zIndex.get(l.p[4]!)!;
        const level = ys.length - 1 - yIndex.get(l.p[3]!)!;
        cells.push({ id: l.id, x: ROW_LABEL + col * PITCH, y: y + level * PITCH });
      }
      y += h + ROW_GAP;
    }
    const groups = sortedDistinct(list.map((l) => l.group).filter((g): g is string => !!g));
    const w = ROW_LABEL + xs.length * zs.length * PITCH + BAND_PAD;
    boxes.push({ band: { area, groups, x: 0, y: 0, w, h: y - ROW_GAP + BAND_PAD, rows }, cells });
  }
  return pack(boxes);
}

/** Shelf packing: bands in order, a new shelf when the next one would pass the width aimed at. */
function pack(boxes: Box[]): Layout {
  const area = boxes.reduce((sum, b) => sum + (b.band.w + BAND_GAP) * (b.band.h + BAND_GAP), 0);
  // Aim at a landscape picture (16:9), never narrower than the widest band.
  const target = Math.max(Math.sqrt(area * (16 / 9)), ...boxes.map((b) => b.band.w), 0);
  const placed = new Map<string, Placed>();
  let x = 0;
  let y = 0;
  let shelf = 0;
  let width = 0;
  for (const { band, cells } of boxes) {
    if (x > 0 && x + band.w > target) {
      x = 0;
      y += shelf + BAND_GAP;
      shelf = 0;
    }
    band.x = x;
    band.y = y;
    for (const r of band.rows) r.y += y;
    for (const c of cells) placed.set(c.id, { id: c.id, x: c.x + x, y: c.y + y });
    x += band.w + BAND_GAP;
    shelf = Math.max(shelf, band.h);
    width = Math.max(width, band.x + band.w);
  }
  return { placed, bands: boxes.map((b) => b.band), width, height: y + shelf };
}

/** The next location from `from` in a direction, as the eye would go: for arrow keys. */
export function neighbour(layout: Layout, from: string, dx: number, dy: number): string | undefined {
  const a = layout.placed.get(from);
  if (!a) return undefined;
  let best: string | undefined;
  let bestCost = Infinity;
  for (const b of layout.placed.values()) {
    const ex = b.x - a.x;
    const ey = b.y - a.y;
    const along = ex * dx + ey * dy;
    if (along <= 0) continue;
    const across = Math.abs(ex * dy) + Math.abs(ey * dx);
    // Straight ahead first; sideways costs more than going on.
    const cost = along + across * 3;
    if (cost < bestCost) {
      bestCost = cost;
      best = b.id;
    }
  }
  return best;
}
