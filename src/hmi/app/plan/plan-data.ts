import type { ReadonlySignal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { ApiFailure } from '../api.ts';
import { readAll } from '../lists/pages.ts';
import { subscribe, type LiveEvent } from '../live.ts';
import { PLAN_EVENTS } from '../live-types.ts';
import { can, user, type User } from '../session.ts';
import type { PlanLink, PlanLocation } from './index.ts';
import { readDefaultHops, readLocation, readRouteLinks, type GroupRecord, type LocationRecord, type UnitRecord } from './plan-reads.ts';
import { PlanStore } from './plan-store.ts';

// usePlanData: what the plan shows, read from the API (locations, groups, transport
// units, routes with their hops, default hops; each only with the grant to read it) and
// kept live from the event stream (docs/events.md): a flag, a unit's move, a group's
// state change the one location they concern; changes of the topology and of routing
// read that part again. On a resync everything is read afresh.
//
// One feed for the page, shared by the screens that draw the plan, and kept when they
// are left: reading and drawing a site of thousands of locations takes longer than a
// screen switch may, so a screen opened again draws what the feed holds at once and
// the feed reads everything again in the background (it followed no events while no
// screen showed the plan). A login of another user starts a new feed.

type PlanEvent = LiveEvent<(typeof PLAN_EVENTS)[number]>;

export interface PlanData {
  locations: ReadonlySignal<PlanLocation[]>;
  links: ReadonlySignal<PlanLink[]>;
  groups: ReadonlySignal<string[]>;
  loading: ReadonlySignal<boolean>;
  reload(): void;
  /** The last read that failed (cleared by the next that succeeds). */
  error: ReadonlySignal<unknown>;
  /** Each group's parent. */
  groupParents: ReadonlySignal<ReadonlyMap<string, string | undefined>>;
  /** A group and the groups below it. */
  groupsBelow(name: string): Set<string>;
  /** Reads one location again (after a change made in the page, when no event may come). */
  refresh(id: string): void;
}

type Part = 'locations' | 'groups' | 'units' | 'links';
const PARTS: readonly Part[] = ['locations', 'groups', 'units', 'links'];
/** Locations created or changed in one go beyond this are read as a whole list. */
const SINGLE_READS = 20;
const DEBOUNCE_MS = 150;

class PlanFeed {
  readonly store = new PlanStore();
  /** Replaced by the feed of another login: its late answers are dropped. */
  private stopped = false;
  /** Screens showing the plan now: events are followed while there is one. */
  private users = 0;
  private off: (() => void) | undefined;
  /** A full read has succeeded: later ones refresh in the background, without `loading`. */
  private held = false;
  private inFlight = 0;
  /** Events that arrived while a list was being read: applied again on top of it. */
  private replay: PlanEvent[] = [];
  private pendingPKeys = new Set<string>();
  private pendingParts = new Set<Part>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Full reads under way: `loading` while there is one. */
  private fullReads = 0;

  /** A screen shows the plan; returns its leaving. */
  attach(): () => void {
    if (this.users++ === 0) {
      this.reload();
      this.off = subscribe(
        PLAN_EVENTS,
        (e) => this.onEvent(e),
        () => this.reload(),
      );
    }
    return () => {
      if (--this.users > 0) return;
      // Nothing followed from here on: the next attach reads everything again.
      this.off?.();
      this.off = undefined;
      clearTimeout(this.timer);
      this.pendingParts.clear();
      this.pendingPKeys.clear();
    };
  }

  stop(): void {
    this.stopped = true;
    this.off?.();
    clearTimeout(this.timer);
    this.store.stop();
  }

  reload(): void {
    void this.read(PARTS);
  }

  private async read(parts: readonly Part[]): Promise<void> {
    const full = parts.length === PARTS.length;
    this.inFlight++;
    if (full) {
      this.fullReads++;
      if (!this.held) this.store.loading.value = true;
    }
    try {
      const results = await Promise.all(parts.map((p) => this.readPart(p)));
      if (this.stopped) return;
      for (const apply of results) apply();
      if (full) this.held = true;
      this.store.error.value = undefined;
    } catch (err) {
      if (!this.stopped) this.store.error.value = err;
    } finally {
      this.inFlight--;
      if (full) this.fullReads--;
      if (!this.stopped) {
        if (this.fullReads === 0) this.store.loading.value = false;
        const again = this.replay;
        if (this.inFlight === 0) this.replay = [];
        for (const e of again) this.apply(e);
        this.store.publish();
      }
    }
  }

  /** Reads one part; the returned function puts it in place (all parts of a read at once). */
  private async readPart(part: Part): Promise<() => void> {
    const s = this.store;
    switch (part) {
      case 'locations': {
        const all = await readAll<LocationRecord>('/v1/locations');
        return () => s.setLocations(all);
      }
      case 'groups': {
        if (!can('location-groups:read')) return () => {};
        const all = await readAll<GroupRecord>('/v1/location-groups');
        return () => s.setGroups(all);
      }
      case 'units': {
        if (!can('transport-units:read')) return () => {};
        const all = await readAll<UnitRecord>('/v1/transport-units');
        return () => s.setUnits(all);
      }
      case 'links': {
        if (!can('routes:read')) return () => {};
        const [routes, defaults] = await Promise.all([readRouteLinks(), readDefaultHops()]);
        return () => s.setLinks(routes, defaults);
      }
    }
  }

  private onEvent(e: PlanEvent): void {
    if (this.inFlight > 0) this.replay.push(e);
    this.apply(e);
  }

  // Each case reads the data its type carries (the event catalogue, src/contract/events.ts).
  private apply(e: PlanEvent): void {
    const s = this.store;
    switch (e.type) {
      case 'location.stateChanged':
        if (!s.setFlag(e.data.locationId, e.data.field, e.data.value)) this.later({ pKey: e.data.pKey });
        break;
      case 'location.created':
      case 'location.changed':
        this.later({ pKey: e.data.pKey });
        break;
      case 'location.deleted':
        s.removeLocation(e.data.locationId);
        break;
      case 'locationGroup.stateChanged':
        s.setGroupState(e.data.name, e.data.field, e.data.value);
        break;
      case 'locationGroup.created':
      case 'locationGroup.deleted':
        this.later({ part: 'groups' });
        break;
      case 'locationGroup.changed':
        // A rename or a new parent: the locations carry the group's name.
        this.later({ part: 'groups' });
        this.later({ part: 'locations' });
        break;
      case 'transportUnit.created':
        if (e.data.actualLocation) s.placeUnit(e.data.barcode, e.data.actualLocation);
        break;
      case 'transportUnit.moved':
        s.placeUnit(e.data.barcode, e.data.to);
        break;
      case 'transportUnit.deleted':
        s.removeUnit(e.data.barcode);
        break;
      case 'transportUnit.changed': {
        const from = e.data.from?.barcode;
        if (from !== undefined && from !== e.data.barcode) s.renameUnit(from, e.data.barcode);
        break;
      }
      default:
        this.later({ part: 'links' });
    }
  }

  /** Collects what must be read again and reads it once the burst is over. */
  private later(what: { pKey?: string; part?: Part }): void {
    if (what.pKey) this.pendingPKeys.add(what.pKey);
    if (what.part) this.pendingParts.add(what.part);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), DEBOUNCE_MS);
  }

  private async flush(): Promise<void> {
    const parts = new Set(this.pendingParts);
    const pKeys = [...this.pendingPKeys];
    this.pendingParts.clear();
    this.pendingPKeys.clear();
    if (pKeys.length > SINGLE_READS) parts.add('locations');
    if (!parts.has('locations')) await Promise.all(pKeys.map((k) => this.refreshPKey(k)));
    if (parts.size) await this.read([...parts]);
  }

  async refreshPKey(pKey: string): Promise<void> {
    try {
      const r = await readLocation(pKey);
      if (!this.stopped) this.store.upsertLocation(r);
    } catch (err) {
      // Deleted meanwhile: its own event removes it.
      if (!(err instanceof ApiFailure && err.status === 404) && !this.stopped) this.store.error.value = err;
    }
  }

  api(): PlanData {
    const s = this.store;
    return {
      locations: s.locations,
      links: s.links,
      groups: s.groups,
      loading: s.loading,
      error: s.error,
      groupParents: s.groupParents,
      reload: () => this.reload(),
      groupsBelow: (name) => s.groupsBelow(name),
      refresh: (id) => {
        const pKey = s.locs.get(id)?.pKey;
        if (pKey) void this.refreshPKey(pKey);
      },
    };
  }
}

let shared: { feed: PlanFeed; owner: string } | undefined;

/** Who reads: the same user with the same grants may see what the feed holds. */
const ownerOf = (u: User | undefined) => (u ? `${u.username}\n${[...u.grants].sort().join(' ')}` : '');

/** The page's feed, or a new one when another user (or other grants) logged in since it was made. */
function sharedFeed(): PlanFeed {
  const owner = ownerOf(user.peek());
  if (!shared || shared.owner !== owner) {
    shared?.feed.stop();
    shared = { feed: new PlanFeed(), owner };
  }
  return shared.feed;
}

/** Reads what the plan shows from the API (locations paged, groups, transport units, routes/hops) and keeps it live; used by the map and by commissioning. */
export function usePlanData(): PlanData {
  const feed = useMemo(sharedFeed, []);
  useEffect(() => feed.attach(), [feed]);
  return useMemo(() => feed.api(), [feed]);
}
