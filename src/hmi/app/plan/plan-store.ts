import { computed, signal } from '@preact/signals';
import type { PlanLink, PlanLocation } from './index.ts';
import { comparePart, partsOf } from './layout.ts';
import type { DefaultHop, GroupRecord, LocationRecord } from './plan-reads.ts';

// What the plan shows, kept as the API said it and changed event by event. Each
// location's PlanLocation object is replaced only when something about it changed, so
// that the plan redraws that one location and leaves the others alone; the list itself
// is published at most every 50 ms, so a burst of PLC telegrams costs a few redraws.

const PUBLISH_MS = 50;

function compareIds(a: string, b: string): number {
  const pa = partsOf(a);
  const pb = partsOf(b);
  for (let i = 0; i < 5; i++) {
    const c = comparePart(pa[i]!, pb[i]!);
    if (c) return c;
  }
  return 0;
}

const notAvailable = (g: GroupRecord | undefined) => g !== undefined && (g.groupStateIn === 'NOT_AVAILABLE' || g.groupStateOut === 'NOT_AVAILABLE');

function stateOf(r: LocationRecord, group: GroupRecord | undefined): PlanLocation['state'] {
  if (r.plcState !== 0) return 'error';
  if (!r.incomingActive && !r.outgoingActive) return 'locked';
  if (!r.incomingActive) return 'inLocked';
  if (!r.outgoingActive) return 'outLocked';
  return notAvailable(group) ? 'unavailable' : 'ok';
}

/** The same as read before: a background read that finds nothing new redraws nothing. */
const sameRecord = (a: LocationRecord | undefined, b: LocationRecord) =>
  a !== undefined &&
  a.pKey === b.pKey &&
  a.locationGroupName === b.locationGroupName &&
  a.incomingActive === b.incomingActive &&
  a.outgoingActive === b.outgoingActive &&
  a.plcState === b.plcState;

const sameUnits = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  (a?.length ?? 0) === (b?.length ?? 0) && (a ?? []).every((u, i) => u === b![i]);

export class PlanStore {
  readonly locations = signal<PlanLocation[]>([]);
  readonly groups = signal<string[]>([]);
  /** Each group's parent: for filters that take a group with the groups below it. */
  readonly groupParents = signal<ReadonlyMap<string, string | undefined>>(new Map());
  readonly loading = signal(true);
  readonly error = signal<unknown>(undefined);
  readonly routeLinks = signal<PlanLink[]>([]);
  readonly defaultHops = signal<DefaultHop[]>([]);
  /** Bumped when locations come or go or groups change: default hops of a group are drawn from its locations. */
  private readonly topology = signal(0);

  readonly locs = new Map<string, LocationRecord>();
  readonly idOfPKey = new Map<string, string>();
  readonly groupRecs = new Map<string, GroupRecord>();
  private readonly unitsAt = new Map<string, string[]>();
  private readonly unitAt = new Map<string, string>();
  private readonly plan = new Map<string, PlanLocation>();
  private order: string[] = [];
  private readonly dirty = new Set<string>();
  private reorder = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  readonly links = computed<PlanLink[]>(() => {
    void this.topology.value;
    const links = [...this.routeLinks.value];
    for (const hop of this.defaultHops.value) {
      if (hop.source) links.push({ from: hop.source, to: hop.next, kind: 'default-hop' });
      else if (hop.sourceGroup) {
        // A group's entry applies at every location in it or below it, except its own target.
        const names = this.groupsBelow(hop.sourceGroup);
        for (const [id, r] of this.locs) {
          if (id !== hop.next && r.locationGroupName && names.has(r.locationGroupName)) links.push({ from: id, to: hop.next, kind: 'default-hop' });
        }
      }
    }
    return links;
  });

  /** A group and every group below it. */
  groupsBelow(name: string): Set<string> {
    const names = new Set([name]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const g of this.groupRecs.values()) {
        if (g.parentName && names.has(g.parentName) && !names.has(g.name)) {
          names.add(g.name);
          grew = true;
        }
      }
    }
    return names;
  }

  // ---- whole lists, read afresh ---------------------------------------------------

  setLocations(records: readonly LocationRecord[]): void {
    const seen = new Set<string>();
    for (const r of records) {
      seen.add(r.locationId);
      const old = this.locs.get(r.locationId);
      if (sameRecord(old, r)) continue;
      if (!old || old.locationGroupName !== r.locationGroupName) this.reorder = true;
      this.locs.set(r.locationId, r);
      this.idOfPKey.set(r.pKey, r.locationId);
      this.dirty.add(r.locationId);
    }
    for (const [id, r] of this.locs) {
      if (!seen.has(id)) {
        this.locs.delete(id);
        if (this.idOfPKey.get(r.pKey) === id) this.idOfPKey.delete(r.pKey);
        this.dirty.add(id);
        this.reorder = true;
      }
    }
    this.schedule();
  }

  setGroups(records: readonly GroupRecord[]): void {
    const before = this.groupRecs;
    const same = records.length === before.size && records.every((g) => JSON.stringify(g) === JSON.stringify(before.get(g.name)));
    if (same) return;
    this.groupRecs.clear();
    for (const g of records) this.groupRecs.set(g.name, g);
    this.groups.value = [...this.groupRecs.keys()].sort(comparePart);
    this.groupParents.value = new Map(records.map((g) => [g.name, g.parentName]));
    for (const id of this.locs.keys()) this.dirty.add(id);
    this.reorder = true;
    this.schedule();
  }

  /** Routes with their hops and the default hops, as read; unchanged ones are kept (nothing redrawn). */
  setLinks(routes: PlanLink[], defaults: DefaultHop[]): void {
    if (JSON.stringify(routes) !== JSON.stringify(this.routeLinks.peek())) this.routeLinks.value = routes;
    if (JSON.stringify(defaults) !== JSON.stringify(this.defaultHops.peek())) this.defaultHops.value = defaults;
  }

  setUnits(units: readonly { barcode: string; actualLocation?: string }[]): void {
    for (const id of this.unitsAt.keys()) this.dirty.add(id);
    this.unitsAt.clear();
    this.unitAt.clear();
    for (const u of units) if (u.actualLocation) this.placeUnit(u.barcode, u.actualLocation);
    this.schedule();
  }

  // ---- single changes, as events tell them -------------------------------------------

  upsertLocation(r: LocationRecord): void {
    const before = this.idOfPKey.get(r.pKey);
    if (before !== undefined && before !== r.locationId) {
      // Renamed: its units stand on it under the new coordinate.
      for (const barcode of this.unitsAt.get(before) ?? []) this.placeUnit(barcode, r.locationId);
      this.removeLocation(before);
    }
    if (!this.locs.has(r.locationId)) this.reorder = true;
    this.locs.set(r.locationId, r);
    this.idOfPKey.set(r.pKey, r.locationId);
    this.dirty.add(r.locationId);
    this.schedule();
  }

  /** One flag of a location (`location.stateChanged`); false when the location is not known here. */
  setFlag(id: string, field: string, value: unknown): boolean {
    const r = this.locs.get(id);
    if (!r) return false;
    if (field === 'incomingActive' || field === 'outgoingActive') this.locs.set(id, { ...r, [field]: value === true });
    else if (field === 'plcState' && typeof value === 'number') this.locs.set(id, { ...r, plcState: value });
    this.dirty.add(id);
    this.schedule();
    return true;
  }

  removeLocation(id: string): void {
    const r = this.locs.get(id);
    if (!r) return;
    this.locs.delete(id);
    this.idOfPKey.delete(r.pKey);
    this.dirty.add(id);
    this.reorder = true;
    this.schedule();
  }

  setGroupState(name: string, field: string, value: unknown): void {
    const g = this.groupRecs.get(name);
    if (!g || (field !== 'groupStateIn' && field !== 'groupStateOut') || typeof value !== 'string') return;
    this.groupRecs.set(name, { ...g, [field]: value });
    for (const [id, r] of this.locs) if (r.locationGroupName === name) this.dirty.add(id);
    this.schedule();
  }

  placeUnit(barcode: string, at: string): void {
    this.removeUnit(barcode);
    this.unitAt.set(barcode, at);
    this.unitsAt.set(at, [...(this.unitsAt.get(at) ?? []), barcode].sort());
    this.dirty.add(at);
    this.schedule();
  }

  removeUnit(barcode: string): void {
    const at = this.unitAt.get(barcode);
    if (at === undefined) return;
    this.unitAt.delete(barcode);
    const rest = (this.unitsAt.get(at) ?? []).filter((b) => b !== barcode);
    if (rest.length) this.unitsAt.set(at, rest);
    else this.unitsAt.delete(at);
    this.dirty.add(at);
    this.schedule();
  }

  renameUnit(from: string, to: string): void {
    const at = this.unitAt.get(from);
    if (at === undefined) return;
    this.removeUnit(from);
    this.placeUnit(to, at);
  }

  // ---- publishing ---------------------------------------------------------------------

  private schedule(): void {
    this.timer ??= setTimeout(() => this.publish(), PUBLISH_MS);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The changed locations get new objects; the rest keep theirs (and are not redrawn). */
  publish(): void {
    this.stop();
    let changed = this.reorder;
    for (const id of this.dirty) {
      const r = this.locs.get(id);
      const old = this.plan.get(id);
      if (!r) {
        if (old) {
          this.plan.delete(id);
          changed = true;
        }
        continue;
      }
      const units = this.unitsAt.get(id);
      const next: PlanLocation = {
        id,
        ...(r.locationGroupName ? { group: r.locationGroupName } : {}),
        state: stateOf(r, r.locationGroupName ? this.groupRecs.get(r.locationGroupName) : undefined),
        ...(units?.length ? { units } : {}),
      };
      if (old && old.group === next.group && old.state === next.state && sameUnits(old.units, next.units)) continue;
      this.plan.set(id, next);
      changed = true;
    }
    this.dirty.clear();
    if (this.reorder) {
      this.order = [...this.locs.keys()].sort(compareIds);
      this.reorder = false;
      this.topology.value++;
    }
    if (changed) this.locations.value = this.order.map((id) => this.plan.get(id)!);
  }
}
