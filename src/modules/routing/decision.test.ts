import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../../db/migrations/index.ts';
import { openDatabase } from '../../core/db.ts';
import { EventLog } from '../../core/event-log.ts';
import { UnitOfWork } from '../../core/unit-of-work.ts';
import { createLogger } from '../../core/log.ts';
import { migrate } from '../../core/migrations.ts';
import { createCommonServices } from '../common/service.ts';
import {
  buildModel,
  decide,
  reasonCode,
  type Decision,
  type DefaultHopDef,
  type GroupDef,
  type LocationDef,
  type OrderTarget,
  type RouteDef,
} from './decision.ts';
import { createRoutingService, type OrderLookup } from './service.ts';
import { createRoutingStore } from './store.ts';

// The routing decision of docs/routing.md (precedence after OpenWMS), one rule per
// test, over a hand-built model. The transport order comes in as plain data here; the
// last block runs the same decision through the service with an OrderLookup of its own.
//
// Topology:  WH ⊃ ZONE-A ⊃ A-SUB ⊃ A-DEEP
//            WH ⊃ ZONE-B ⊃ B-SUB
//            WH ⊃ ZONE-C

const GROUPS: GroupDef[] = [
  { name: 'WH', parentName: null, groupStateIn: 'AVAILABLE' },
  { name: 'ZONE-A', parentName: 'WH', groupStateIn: 'AVAILABLE' },
  { name: 'A-SUB', parentName: 'ZONE-A', groupStateIn: 'AVAILABLE' },
  { name: 'A-DEEP', parentName: 'A-SUB', groupStateIn: 'AVAILABLE' },
  { name: 'ZONE-B', parentName: 'WH', groupStateIn: 'AVAILABLE' },
  { name: 'B-SUB', parentName: 'ZONE-B', groupStateIn: 'AVAILABLE' },
  { name: 'ZONE-C', parentName: 'WH', groupStateIn: 'AVAILABLE' },
];

const L = 'A/SUB/0001'; // the unit stands here (A-SUB)
const L2 = 'A/SUB/0002'; // a neighbour in A-SUB
const DEEP = 'A/DEEP/0001'; // in A-DEEP, below A-SUB
const T = 'B/SUB/0001'; // the order's target location (B-SUB)
const T2 = 'B/SUB/0002'; // another location of B-SUB
// Next-hop candidates, one per route, so that the answer tells which route won.
const N = ['C/0000/0000', 'C/0000/0001', 'C/0000/0002', 'C/0000/0003', 'C/0000/0004', 'C/0000/0005', 'C/0000/0006', 'C/0000/0007'];
const NB = 'B/ZONE/0001'; // in ZONE-B
const NWH = 'W/0000/0001'; // in WH

const loc = (locationId: string, groupName: string, flags: Partial<LocationDef> = {}): LocationDef => ({
  locationId,
  groupName,
  incomingActive: true,
  outgoingActive: true,
  ...flags,
});

function locations(overrides: Record<string, Partial<LocationDef>> = {}): LocationDef[] {
  const base = [
    loc(L, 'A-SUB'),
    loc(L2, 'A-SUB'),
    loc(DEEP, 'A-DEEP'),
    loc(T, 'B-SUB'),
    loc(T2, 'B-SUB'),
    loc(NB, 'ZONE-B'),
    loc(NWH, 'WH'),
    ...N.map((id) => loc(id, 'ZONE-C')),
  ];
  return base.map((l) => ({ ...l, ...overrides[l.locationId] }));
}

interface Setup {
  routes?: RouteDef[];
  defaultHops?: DefaultHopDef[];
  groups?: GroupDef[];
  locationFlags?: Record<string, Partial<LocationDef>>;
}

const model = (s: Setup) =>
  buildModel({
    routes: s.routes ?? [],
    defaultHops: s.defaultHops ?? [],
    groups: s.groups ?? GROUPS,
    locations: locations(s.locationFlags),
  });

type End = { loc: string } | { group: string } | undefined;

/** A route from `source` to `target` whose hops at L are `nexts` (alternatives in order). */
function route(name: string, source: End, target: End, nexts: string | string[], enabled = true): RouteDef {
  return {
    key: `key-${name}`,
    name,
    enabled,
    sourceLocation: source && 'loc' in source ? source.loc : null,
    sourceGroup: source && 'group' in source ? source.group : null,
    targetLocation: target && 'loc' in target ? target.loc : null,
    targetGroup: target && 'group' in target ? target.group : null,
    hops: (Array.isArray(nexts) ? nexts : [nexts]).map((next) => ({ source: L, next })),
  };
}

const toLocation: OrderTarget = { pKey: 'TO-1', targetLocation: T, targetLocationGroup: null };
const toGroup = (group: string): OrderTarget => ({ pKey: 'TO-2', targetLocation: null, targetLocationGroup: group });

/** The route name and next location of a `next` decision. */
function chosen(d: Decision): { route: string | undefined; next: string } {
  expect(d.kind, JSON.stringify(d)).toBe('next');
  if (d.kind !== 'next') throw new Error('unreachable');
  return { route: d.route?.name, next: d.next };
}

/** No transport order (a default parameter cannot be skipped with `undefined`). */
const NONE = null;
const at = (s: Setup, order: OrderTarget | null = toLocation, location = L) => decide(model(s), { location, order: order ?? undefined });

// ---- route precedence ---------------------------------------------------------------

describe('the route of the journey starts where the order began', () => {
  it("a unit on its way (at L) follows the route from the order's source DEEP, though no route starts at L", () => {
    const journey: RouteDef = { ...route('deep-to-t', { loc: DEEP }, { loc: T }, N[0]!) };
    const order: OrderTarget = { ...toLocation, sourceLocation: DEEP };
    expect(chosen(at({ routes: [journey] }, order))).toEqual({ route: 'deep-to-t', next: N[0] });
  });

  it("the order's source beats the current location: DEEP → T wins over L → T", () => {
    const routes = [route('from-here', { loc: L }, { loc: T }, N[1]!), route('from-origin', { loc: DEEP }, { loc: T }, N[0]!)];
    expect(chosen(at({ routes }, { ...toLocation, sourceLocation: DEEP }))).toEqual({ route: 'from-origin', next: N[0] });
  });

  it("the origin's groups come before the current location: A-DEEP → T wins over L → T", () => {
    const routes = [route('from-here', { loc: L }, { loc: T }, N[1]!), route('from-origin-group', { group: 'A-DEEP' }, { loc: T }, N[0]!)];
    expect(chosen(at({ routes }, { ...toLocation, sourceLocation: DEEP }))).toEqual({ route: 'from-origin-group', next: N[0] });
  });

  it('no route from the origin: the search runs from the current location', () => {
    const routes = [route('from-here', { loc: L }, { loc: T }, N[0]!)];
    expect(chosen(at({ routes }, { ...toLocation, sourceLocation: NWH }))).toEqual({ route: 'from-here', next: N[0] });
  });
});

describe('route precedence (most specific first)', () => {
  it("L → target location beats L → the target location's group", () => {
    const routes = [route('to-group', { loc: L }, { group: 'B-SUB' }, N[1]!), route('to-loc', { loc: L }, { loc: T }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'to-loc', next: N[0] });
  });

  it('L → target group beats L → an ancestor of the target group', () => {
    const routes = [route('to-zone', { loc: L }, { group: 'ZONE-B' }, N[1]!), route('to-group', { loc: L }, { group: 'B-SUB' }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'to-group', next: N[0] });
  });

  it('target ancestors are climbed nearest first: L → ZONE-B beats L → WH', () => {
    const routes = [route('to-wh', { loc: L }, { group: 'WH' }, N[1]!), route('to-zone', { loc: L }, { group: 'ZONE-B' }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'to-zone', next: N[0] });
  });

  it('the root of the target tree still counts: L → WH when nothing nearer exists', () => {
    const routes = [route('to-wh', { loc: L }, { group: 'WH' }, N[0]!), route('elsewhere', { loc: L }, { group: 'ZONE-C' }, N[1]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'to-wh', next: N[0] });
  });

  it("every route from L (even to the root group) beats a route from L's group to the target location", () => {
    const routes = [route('group-to-loc', { group: 'A-SUB' }, { loc: T }, N[1]!), route('loc-to-wh', { loc: L }, { group: 'WH' }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'loc-to-wh', next: N[0] });
  });

  it("from L's group the same target steps apply: group(L) → T beats group(L) → target group", () => {
    const routes = [route('sub-to-group', { group: 'A-SUB' }, { group: 'B-SUB' }, N[1]!), route('sub-to-loc', { group: 'A-SUB' }, { loc: T }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'sub-to-loc', next: N[0] });
  });

  it('source ancestors are climbed nearest first: A-SUB → ZONE-B beats ZONE-A → T', () => {
    const routes = [route('zone-to-loc', { group: 'ZONE-A' }, { loc: T }, N[1]!), route('sub-to-zone', { group: 'A-SUB' }, { group: 'ZONE-B' }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'sub-to-zone', next: N[0] });
  });

  it('ZONE-A → T beats WH → T, and WH (the root) as source still counts', () => {
    const routes = [route('wh-to-loc', { group: 'WH' }, { loc: T }, N[1]!), route('zone-to-loc', { group: 'ZONE-A' }, { loc: T }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'zone-to-loc', next: N[0] });
    expect(chosen(at({ routes: [routes[0]!] }))).toEqual({ route: 'wh-to-loc', next: N[1] });
  });

  it('a route without source comes last, after every group of L', () => {
    const routes = [route('anywhere-to-loc', undefined, { loc: T }, N[1]!), route('wh-to-zone-b', { group: 'WH' }, { group: 'ZONE-B' }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'wh-to-zone-b', next: N[0] });
    expect(chosen(at({ routes: [routes[0]!] }))).toEqual({ route: 'anywhere-to-loc', next: N[1] });
  });

  it('a route without source also climbs the target steps: anywhere → T beats anywhere → B-SUB', () => {
    const routes = [route('anywhere-to-group', undefined, { group: 'B-SUB' }, N[1]!), route('anywhere-to-loc', undefined, { loc: T }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'anywhere-to-loc', next: N[0] });
  });

  it('disabled routes are skipped at every step', () => {
    const routes = [
      route('to-loc', { loc: L }, { loc: T }, N[0]!, false),
      route('to-group', { loc: L }, { group: 'B-SUB' }, N[1]!, false),
      route('sub-to-loc', { group: 'A-SUB' }, { loc: T }, N[2]!),
    ];
    expect(chosen(at({ routes }))).toEqual({ route: 'sub-to-loc', next: N[2] });
    expect(at({ routes: routes.slice(0, 2) })).toEqual({ kind: 'no-route', route: undefined });
  });

  it('routes to somewhere else do not match: another target location, a target group the target is not in', () => {
    const routes = [route('to-T2', { loc: L }, { loc: T2 }, N[0]!), route('to-zone-c', { loc: L }, { group: 'ZONE-C' }, N[1]!)];
    expect(at({ routes })).toEqual({ kind: 'no-route', route: undefined });
  });

  it("routes from somewhere else do not match: another location, a group L is not in, a group below L's", () => {
    const routes = [
      route('from-L2', { loc: L2 }, { loc: T }, N[0]!),
      route('from-zone-b', { group: 'ZONE-B' }, { loc: T }, N[1]!),
      route('from-deep', { group: 'A-DEEP' }, { loc: T }, N[2]!),
    ];
    expect(at({ routes })).toEqual({ kind: 'no-route', route: undefined });
  });

  it('an order with only a target group starts the target steps at that group (L → B-SUB beats L → ZONE-B)', () => {
    const routes = [
      route('to-loc', { loc: L }, { loc: T }, N[2]!),
      route('to-zone', { loc: L }, { group: 'ZONE-B' }, N[1]!),
      route('to-group', { loc: L }, { group: 'B-SUB' }, N[0]!),
    ];
    expect(chosen(at({ routes }, toGroup('B-SUB')))).toEqual({ route: 'to-group', next: N[0] });
    expect(chosen(at({ routes }, toGroup('ZONE-B')))).toEqual({ route: 'to-zone', next: N[1] });
  });

  it("an order with target location and group climbs from the order's group, not the location's", () => {
    const routes = [route('to-b-sub', { loc: L }, { group: 'B-SUB' }, N[1]!), route('to-zone-c', { loc: L }, { group: 'ZONE-C' }, N[0]!)];
    const order: OrderTarget = { pKey: 'TO-3', targetLocation: T, targetLocationGroup: 'ZONE-C' };
    expect(chosen(at({ routes }, order))).toEqual({ route: 'to-zone-c', next: N[0] });
  });

  it('several enabled routes with the same ends: the first by name (the service refuses to create that)', () => {
    const routes = [route('b-route', { loc: L }, { loc: T }, N[1]!), route('a-route', { loc: L }, { loc: T }, N[0]!)];
    expect(chosen(at({ routes }))).toEqual({ route: 'a-route', next: N[0] });
  });

  it("the chosen route's key and name are reported, with via=route", () => {
    const d = at({ routes: [route('to-loc', { loc: L }, { loc: T }, N[0]!)] });
    expect(d).toEqual({ kind: 'next', next: N[0], route: { key: 'key-to-loc', name: 'to-loc' }, via: 'route' });
  });
});

// ---- hops ---------------------------------------------------------------------------

describe('next hop of the chosen route', () => {
  it('takes the hop whose source is L, ignoring hops at other locations', () => {
    const r = route('to-loc', { loc: L }, { loc: T }, []);
    r.hops = [
      { source: L2, next: N[0]! },
      { source: L, next: N[1]! },
      { source: N[1]!, next: T },
    ];
    expect(chosen(at({ routes: [r] }))).toEqual({ route: 'to-loc', next: N[1] });
    // From anywhere, the same route at L2 takes L2's hop.
    expect(chosen(at({ routes: [{ ...r, sourceLocation: null }] }, toLocation, L2))).toEqual({ route: 'to-loc', next: N[0] });
  });

  it('only the most specific route is asked: it has no hop at L → the default table, not a less specific route', () => {
    const specific = route('to-loc', { loc: L }, { loc: T }, []);
    const general = route('to-group', { loc: L }, { group: 'B-SUB' }, N[1]!);
    const d = at({ routes: [specific, general], defaultHops: [{ source: L, next: N[2]! }] });
    expect(d).toEqual({ kind: 'next', next: N[2], route: { key: 'key-to-loc', name: 'to-loc' }, via: 'default' });
  });

  it('the route has no hop at L and there is no default hop: no-route naming the route', () => {
    const d = at({ routes: [route('to-loc', { loc: L }, { loc: T }, [])] });
    expect(d).toEqual({ kind: 'no-route', route: { key: 'key-to-loc', name: 'to-loc' } });
  });

  it('no route at all: the default table; nothing there either: no-route', () => {
    expect(at({ defaultHops: [{ sourceGroup: 'ZONE-A', next: N[3]! }] })).toEqual({ kind: 'next', next: N[3], route: undefined, via: 'default' });
    expect(at({})).toEqual({ kind: 'no-route', route: undefined });
  });

  it('an order without any target finds no route', () => {
    const order: OrderTarget = { pKey: 'TO-4', targetLocation: null, targetLocationGroup: null };
    expect(at({ routes: [route('any', undefined, { loc: T }, N[0]!)] }, order)).toEqual({ kind: 'no-route', route: undefined });
  });
});

// ---- locks --------------------------------------------------------------------------

describe('lock check', () => {
  const three = () => [route('to-loc', { loc: L }, { loc: T }, [N[0]!, N[1]!, N[2]!])];

  it('a next location with incomingActive=false is skipped for the next alternative', () => {
    expect(chosen(at({ routes: three(), locationFlags: { [N[0]!]: { incomingActive: false } } })).next).toBe(N[1]);
  });

  it('a next location whose group is NOT_AVAILABLE is skipped', () => {
    const groups = GROUPS.map((g) => (g.name === 'ZONE-C' ? { ...g, groupStateIn: 'NOT_AVAILABLE' as const } : g));
    const r = route('to-loc', { loc: L }, { loc: T }, [N[0]!, NB]);
    expect(chosen(at({ routes: [r], groups })).next).toBe(NB);
  });

  it('a next location below a NOT_AVAILABLE ancestor group is skipped, even when its own group is AVAILABLE', () => {
    const groups = GROUPS.map((g) => (g.name === 'ZONE-B' ? { ...g, groupStateIn: 'NOT_AVAILABLE' as const } : g));
    const r = route('to-loc', { loc: L }, { loc: T }, [T2, NB, N[0]!]);
    expect(chosen(at({ routes: [r], groups })).next).toBe(N[0]);
  });

  it('alternatives are tried in their order: the first free one wins, later free ones are not taken', () => {
    const d = at({ routes: three(), locationFlags: { [N[0]!]: { incomingActive: false } } });
    expect(chosen(d).next).toBe(N[1]);
    expect(chosen(at({ routes: three() })).next).toBe(N[0]);
  });

  it('outgoingActive of the next location does not matter for sending a unit there', () => {
    expect(chosen(at({ routes: three(), locationFlags: { [N[0]!]: { outgoingActive: false } } })).next).toBe(N[0]);
  });

  it('all alternatives locked: locked NEXT_LOCKED with the candidates, no fallback to the default table', () => {
    const flags = { [N[0]!]: { incomingActive: false }, [N[1]!]: { incomingActive: false }, [N[2]!]: { incomingActive: false } };
    const d = at({ routes: three(), locationFlags: flags, defaultHops: [{ source: L, next: N[5]! }] });
    expect(d).toEqual({
      kind: 'locked',
      reason: 'NEXT_LOCKED',
      route: { key: 'key-to-loc', name: 'to-loc' },
      via: 'route',
      candidates: [N[0], N[1], N[2]],
    });
  });

  it('L with outgoingActive=false: locked SOURCE_OUTGOING_LOCKED, whatever the hops', () => {
    const d = at({ routes: three(), locationFlags: { [L]: { outgoingActive: false } } });
    expect(d).toMatchObject({ kind: 'locked', reason: 'SOURCE_OUTGOING_LOCKED', route: { name: 'to-loc' } });
  });

  it('L with outgoingActive=false but nowhere to go: no-route / no-order (there is nothing to hold back)', () => {
    expect(at({ locationFlags: { [L]: { outgoingActive: false } } })).toEqual({ kind: 'no-route', route: undefined });
    expect(at({ locationFlags: { [L]: { outgoingActive: false } } }, NONE)).toEqual({ kind: 'no-order' });
  });

  it('L with incomingActive=false still lets the unit out', () => {
    expect(chosen(at({ routes: three(), locationFlags: { [L]: { incomingActive: false } } })).next).toBe(N[0]);
  });

  it('a next location the model does not know counts as locked', () => {
    const r = route('to-loc', { loc: L }, { loc: T }, ['X/GONE/0001', N[1]!]);
    expect(chosen(at({ routes: [r] })).next).toBe(N[1]);
  });

  it('default hops are lock-checked the same way', () => {
    const d = at(
      {
        defaultHops: [
          { source: L, next: N[0]! },
          { source: L, next: N[1]! },
        ],
        locationFlags: { [N[0]!]: { incomingActive: false } },
      },
      NONE,
    );
    expect(d).toEqual({ kind: 'next', next: N[1], route: undefined, via: 'default' });
    const all = at(
      {
        defaultHops: [
          { source: L, next: N[0]! },
          { source: L, next: N[1]! },
        ],
        locationFlags: { [N[0]!]: { incomingActive: false }, [N[1]!]: { incomingActive: false } },
      },
      NONE,
    );
    expect(all).toEqual({ kind: 'locked', reason: 'NEXT_LOCKED', route: undefined, via: 'default', candidates: [N[0], N[1]] });
  });
});

// ---- default hops and no order ------------------------------------------------------

describe('default hop table (units without order, and the fallback)', () => {
  it("no order: the entry of L itself wins over its group's", () => {
    const defaultHops = [
      { sourceGroup: 'A-SUB', next: N[1]! },
      { source: L, next: N[0]! },
    ];
    expect(at({ defaultHops }, NONE)).toEqual({ kind: 'next', next: N[0], route: undefined, via: 'default' });
  });

  it("no order: L's group, then its ancestors, nearest first", () => {
    const defaultHops = [
      { sourceGroup: 'WH', next: N[2]! },
      { sourceGroup: 'ZONE-A', next: N[1]! },
      { sourceGroup: 'A-SUB', next: N[0]! },
    ];
    expect(chosen(at({ defaultHops }, NONE)).next).toBe(N[0]);
    expect(chosen(at({ defaultHops: defaultHops.slice(0, 2) }, NONE)).next).toBe(N[1]);
    expect(chosen(at({ defaultHops: defaultHops.slice(0, 1) }, NONE)).next).toBe(N[2]);
  });

  it('entries of other locations and of groups L is not in do not apply', () => {
    const defaultHops = [
      { source: L2, next: N[0]! },
      { sourceGroup: 'ZONE-B', next: N[1]! },
      { sourceGroup: 'A-DEEP', next: N[2]! },
    ];
    expect(at({ defaultHops }, NONE)).toEqual({ kind: 'no-order' });
  });

  it('a group entry pointing at L itself does not apply at L: the next group up is asked', () => {
    const defaultHops = [
      { sourceGroup: 'A-SUB', next: L },
      { sourceGroup: 'ZONE-A', next: N[1]! },
    ];
    expect(chosen(at({ defaultHops }, NONE)).next).toBe(N[1]);
    // …while at its neighbour in the same group it does.
    expect(chosen(at({ defaultHops }, NONE, L2)).next).toBe(L);
  });

  it('several entries for the same source are alternatives in table order', () => {
    const defaultHops = [
      { sourceGroup: 'A-SUB', next: N[0]! },
      { sourceGroup: 'A-SUB', next: N[1]! },
    ];
    expect(chosen(at({ defaultHops, locationFlags: { [N[0]!]: { incomingActive: false } } }, NONE)).next).toBe(N[1]);
  });

  it('no order and no entry: no-order', () => {
    expect(at({ routes: [route('to-loc', { loc: L }, { loc: T }, N[0]!)] }, NONE)).toEqual({ kind: 'no-order' });
  });

  it('a unit with an order and no route falls back to the default table', () => {
    expect(at({ defaultHops: [{ source: L, next: N[4]! }] })).toEqual({ kind: 'next', next: N[4], route: undefined, via: 'default' });
  });
});

// ---- arrival and unknown locations --------------------------------------------------

describe('arrived, unknown location, reason codes', () => {
  const routes = [route('anywhere-to-wh', undefined, { group: 'WH' }, N[0]!)];

  it("L is the order's target location: arrived, even when L does not let units out", () => {
    expect(at({ routes }, toLocation, T)).toEqual({ kind: 'arrived' });
    expect(at({ routes, locationFlags: { [T]: { outgoingActive: false } } }, toLocation, T)).toEqual({ kind: 'arrived' });
  });

  it('an order with only a target group: arrived anywhere in that group or below it', () => {
    expect(at({ routes }, toGroup('ZONE-A'), L)).toEqual({ kind: 'arrived' });
    expect(at({ routes }, toGroup('ZONE-A'), DEEP)).toEqual({ kind: 'arrived' });
    expect(at({ routes }, toGroup('A-SUB'), L)).toEqual({ kind: 'arrived' });
    expect(at({ routes }, toGroup('A-DEEP'), L).kind).toBe('next');
  });

  it('an order with a target location: another location of the same group is not the target', () => {
    const order: OrderTarget = { pKey: 'TO-5', targetLocation: T, targetLocationGroup: 'B-SUB' };
    // Not arrived: routing goes on (here the route has no hop at T2).
    expect(at({ routes }, order, T2)).toEqual({ kind: 'no-route', route: { key: 'key-anywhere-to-wh', name: 'anywhere-to-wh' } });
  });

  it('an unknown location: unknown-location', () => {
    expect(at({ routes }, toLocation, 'X/NOWHERE/0001')).toEqual({ kind: 'unknown-location' });
  });

  it('maps each kind to the RES_ reason code of docs/plc.md', () => {
    expect(reasonCode({ kind: 'next', next: N[0]!, route: undefined, via: 'default' })).toBe('00000000');
    expect(reasonCode({ kind: 'arrived' })).toBe('00000000');
    expect(reasonCode({ kind: 'no-order' })).toBe('00000001');
    expect(reasonCode({ kind: 'no-route', route: undefined })).toBe('00000002');
    expect(reasonCode({ kind: 'locked', reason: 'NEXT_LOCKED', route: undefined, via: 'route', candidates: [] })).toBe('00000003');
    expect(reasonCode({ kind: 'unknown-location' })).toBe('00000005');
  });

  it('a group tree with a loop (bad data) does not hang the decision', () => {
    const groups: GroupDef[] = [
      { name: 'ZONE-A', parentName: 'A-SUB', groupStateIn: 'AVAILABLE' },
      { name: 'A-SUB', parentName: 'ZONE-A', groupStateIn: 'AVAILABLE' },
      ...GROUPS.filter((g) => g.name !== 'ZONE-A' && g.name !== 'A-SUB'),
    ];
    expect(at({ groups }, NONE)).toEqual({ kind: 'no-order' });
  });
});

// ---- the service's decide with an OrderLookup of its own ------------------------------

describe('service.decide asks the injected OrderLookup', () => {
  it('passes the barcode to startedOrderOf and decides with the order it returns', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wms-routing-'));
    const db = openDatabase({ file: path.join(dir, 'db.sqlite'), busyTimeoutMs: 1000 });
    try {
      migrate(db, migrations, { backupDir: path.join(dir, 'backups'), backupsToKeep: 1, log: createLogger({ level: 'silent' }) });
      const work = new UnitOfWork(db, new EventLog(db), (err) => {
        throw err;
      });
      const common = createCommonServices(db, work);
      common.seed();
      common.locationGroups.create({ name: 'SRC', parentName: 'WAREHOUSE' });
      common.locationGroups.create({ name: 'DST', parentName: 'WAREHOUSE' });
      for (const [locationId, locationGroupName] of [
        ['SVC/0001/0000/0000/0000', 'SRC'],
        ['SVC/0002/0000/0000/0000', 'SRC'],
        ['SVC/0003/0000/0000/0000', 'DST'],
      ] as const) {
        common.locations.create({ locationId, locationGroupName });
      }
      const asked: string[] = [];
      const orders: OrderLookup = {
        startedOrderOf(barcode) {
          asked.push(barcode);
          return barcode === 'WITH-ORDER' ? { pKey: 'TO-9', targetLocation: null, targetLocationGroup: 'DST' } : undefined;
        },
      };
      const routing = createRoutingService({ work, store: createRoutingStore(db), common, orders });
      routing.create({ name: 'src-dst', key: 'SRC-DST', sourceLocationGroupName: 'SRC', targetLocationGroupName: 'DST' });
      routing.replaceHops('SRC-DST', [{ source: 'SVC/0001/0000/0000/0000', next: 'SVC/0002/0000/0000/0000' }]);
      routing.replaceDefaultHops([{ sourceGroup: 'SRC', next: 'SVC/0003/0000/0000/0000' }]);

      expect(routing.decide('WITH-ORDER', 'SVC/0001/0000/0000/0000')).toEqual({
        kind: 'next',
        next: 'SVC/0002/0000/0000/0000',
        route: { key: 'SRC-DST', name: 'src-dst' },
        via: 'route',
        order: { pKey: 'TO-9', targetLocation: null, targetLocationGroup: 'DST' },
      });
      expect(routing.decide('NO-ORDER', 'SVC/0001/0000/0000/0000')).toMatchObject({
        kind: 'next',
        next: 'SVC/0003/0000/0000/0000',
        via: 'default',
        order: undefined,
      });
      expect(routing.decide(undefined, 'SVC/0001/0000/0000/0000')).toMatchObject({ kind: 'next', via: 'default' });
      expect(routing.decide('WITH-ORDER', 'SVC/0003/0000/0000/0000')).toMatchObject({ kind: 'arrived' });
      expect(routing.decide('WITH-ORDER', 'SVC/9999/0000/0000/0000')).toMatchObject({ kind: 'unknown-location' });
      expect(asked).toEqual(['WITH-ORDER', 'NO-ORDER', 'WITH-ORDER', 'WITH-ORDER']);

      // A lock through the common module is seen at once (flags are read live).
      const next = common.locations.findByLocationId('SVC/0002/0000/0000/0000')!;
      common.locations.changeState(next.pk, '*******1');
      expect(routing.decide('WITH-ORDER', 'SVC/0001/0000/0000/0000')).toMatchObject({ kind: 'locked', reason: 'NEXT_LOCKED' });
      // Connecting another lookup (the composition root does it once) takes effect at once.
      routing.connectOrders({ startedOrderOf: () => undefined });
      expect(routing.decide('WITH-ORDER', 'SVC/0001/0000/0000/0000')).toMatchObject({ kind: 'next', via: 'default', order: undefined });
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
