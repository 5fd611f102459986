import type { Db } from '../../core/db.ts';
import { KeysetList, type Listing } from '../../core/listing.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../core/versioned.ts';

// All SQL of the movements module (table `movements`, migration 0060).

/** States in their order: a state is "higher" than those before it (spec: "CANCELLED or higher"). */
export const MOVEMENT_STATES = ['INACTIVE', 'ACTIVE', 'CANCELLED', 'DONE'] as const;
export type MovementState = (typeof MOVEMENT_STATES)[number];

/** INBOUND, OUTBOUND, REPLENISHMENT as the spec shows them; RELOCATION and MANUAL (the default) added. */
export const MOVEMENT_TYPES = ['INBOUND', 'OUTBOUND', 'REPLENISHMENT', 'RELOCATION', 'MANUAL'] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

export const MOVEMENT_MODES = ['AUTOMATIC', 'MANUAL'] as const;
export type MovementMode = (typeof MOVEMENT_MODES)[number];

export type TargetKind = 'LOCATION' | 'GROUP';

/** What a movement row holds besides its technical fields. */
export interface MovementFields {
  transportUnitPk: string;
  /** The unit's barcode when the row was last written. */
  transportUnitBk: string;
  type: MovementType;
  initiator: string | null;
  mode: MovementMode;
  sku: string | null;
  priority: number;
  state: MovementState;
  sourceLocationPk: string;
  /** Coordinate of the source location when the row was last written. */
  sourceLocation: string;
  sourceLocationGroupName: string;
  targetKind: TargetKind;
  targetPk: string;
  /** Coordinate of the target location, or name of the target group, when the row was last written. */
  target: string;
  targetLocationGroup: string;
  startedAt: string | null;
  latestDueAt: string | null;
  finishedAt: string | null;
}

export interface StoredMovement extends Versioned, MovementFields {}

interface Row extends VersionedRow {
  id: number;
  transport_unit_pk: string;
  transport_unit_bk: string;
  type: MovementType;
  initiator: string | null;
  mode: MovementMode;
  sku: string | null;
  priority: number;
  state: MovementState;
  source_location_pk: string;
  source_location: string;
  source_location_group_name: string;
  target_kind: TargetKind;
  target_pk: string;
  target: string;
  target_location_group: string;
  started_at: string | null;
  latest_due_at: string | null;
  finished_at: string | null;
}

const SELECT = `
  SELECT id, pk, transport_unit_pk, transport_unit_bk, type, initiator, mode, sku, priority, state,
         source_location_pk, source_location, source_location_group_name,
         target_kind, target_pk, target, target_location_group,
         started_at, latest_due_at, finished_at, ol, create_dt, last_modified_dt
  FROM movements`;

/** Work order: a lower priority value first, then the earliest due (none last), then the oldest. */
const WORK_ORDER = "priority, latest_due_at IS NULL, coalesce(latest_due_at, ''), id";

// Lists of movements, a page or a chunk at a time (core/listing.ts). Movements pile up
// with the site's history: without `limit` the lists stream from a snapshot.
const TYPES = '(@types IS NULL OR type IN (SELECT value FROM json_each(@types)))';
const STATES = '(@states IS NULL OR state IN (SELECT value FROM json_each(@states)))';
/** Oldest first (`id` orders by creation). */
const oldestFirst = (where: string) =>
  new KeysetList<Row>({ sql: `${SELECT} WHERE ${where} AND id > @k0 ORDER BY id LIMIT @limit`, keyOf: (row) => [row.id], first: [0] });
const EVERY_MOVEMENT = oldestFirst('1');
/** Through the indexes of the unit's pk and barcode, in id order. */
const OF_UNIT = oldestFirst(`transport_unit_pk = @unit AND ${TYPES} AND ${STATES}`);
const OF_BARCODE = oldestFirst(`transport_unit_bk = @barcode AND ${TYPES} AND ${STATES}`);
/** In work order; the key holds `latest_due_at` as '' when there is none (those come last anyway). */
const inWorkOrder = (where: string) =>
  new KeysetList<Row>({
    sql: `${SELECT} WHERE ${where} AND ${TYPES} AND (@sources IS NULL OR source_location_pk IN (SELECT value FROM json_each(@sources)))
            AND (${WORK_ORDER}) > (@k0, @k1, @k2, @k3)
          ORDER BY ${WORK_ORDER} LIMIT @limit`,
    keyOf: (row) => [row.priority, row.latest_due_at === null ? 1 : 0, row.latest_due_at ?? '', row.id],
    first: [-1, 0, '', 0],
  });
// One state (an operator's work queue) reads the index (state, work order) in order;
// several are merged by a sort of the rows after the key.
const IN_STATE = inWorkOrder('state = @state');
const IN_STATES = inWorkOrder('state IN (SELECT value FROM json_each(@states))');
const IN_ANY_STATE = inWorkOrder('1');

const toMovement = (row: Row): StoredMovement => ({
  ...versionedFrom(row),
  transportUnitPk: row.transport_unit_pk,
  transportUnitBk: row.transport_unit_bk,
  type: row.type,
  initiator: row.initiator,
  mode: row.mode,
  sku: row.sku,
  priority: row.priority,
  state: row.state,
  sourceLocationPk: row.source_location_pk,
  sourceLocation: row.source_location,
  sourceLocationGroupName: row.source_location_group_name,
  targetKind: row.target_kind,
  targetPk: row.target_pk,
  target: row.target,
  targetLocationGroup: row.target_location_group,
  startedAt: row.started_at,
  latestDueAt: row.latest_due_at,
  finishedAt: row.finished_at,
});

/** A list filter: `null` = any value, else a JSON array of the accepted values. */
const list = (values: readonly string[] | undefined): string | null => (values === undefined ? null : JSON.stringify(values));

type Params = MovementFields & { pk: string; now: string };

/** Exactly the bound parameters (callers may pass a whole StoredMovement). */
const params = (pk: string, f: MovementFields, now: string): Params => ({
  pk,
  now,
  transportUnitPk: f.transportUnitPk,
  transportUnitBk: f.transportUnitBk,
  type: f.type,
  initiator: f.initiator,
  mode: f.mode,
  sku: f.sku,
  priority: f.priority,
  state: f.state,
  sourceLocationPk: f.sourceLocationPk,
  sourceLocation: f.sourceLocation,
  sourceLocationGroupName: f.sourceLocationGroupName,
  targetKind: f.targetKind,
  targetPk: f.targetPk,
  target: f.target,
  targetLocationGroup: f.targetLocationGroup,
  startedAt: f.startedAt,
  latestDueAt: f.latestDueAt,
  finishedAt: f.finishedAt,
});

interface Filter {
  types: string | null;
  states: string | null;
}

export function createMovementStore(db: Db, reads?: ReadPool) {
  const listed = (list: KeysetList<Row>, params: Record<string, unknown>): Listing<StoredMovement> =>
    list.listing(db, params, (rows) => rows.map(toMovement), reads);
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE pk = ?`),
    forUnit: db.prepare<[Filter & { unit: string }], Row>(
      `${SELECT} WHERE transport_unit_pk = +@unit
         AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types)))
         AND (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
       ORDER BY id`,
    ),
    insert: db.prepare<[Params]>(
      `INSERT INTO movements (pk, transport_unit_pk, transport_unit_bk, type, initiator, mode, sku, priority, state,
         source_location_pk, source_location, source_location_group_name, target_kind, target_pk, target,
         target_location_group, started_at, latest_due_at, finished_at, ol, create_dt, last_modified_dt)
       VALUES (@pk, @transportUnitPk, @transportUnitBk, @type, @initiator, @mode, @sku, @priority, @state,
         @sourceLocationPk, @sourceLocation, @sourceLocationGroupName, @targetKind, @targetPk, @target,
         @targetLocationGroup, @startedAt, @latestDueAt, @finishedAt, 0, @now, @now)`,
    ),
    update: db.prepare<[Params]>(
      `UPDATE movements SET transport_unit_pk = @transportUnitPk, transport_unit_bk = @transportUnitBk, type = @type,
         initiator = @initiator, mode = @mode, sku = @sku, priority = @priority, state = @state,
         source_location_pk = @sourceLocationPk, source_location = @sourceLocation,
         source_location_group_name = @sourceLocationGroupName, target_kind = @targetKind, target_pk = @targetPk,
         target = @target, target_location_group = @targetLocationGroup, started_at = @startedAt,
         latest_due_at = @latestDueAt, finished_at = @finishedAt, ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
  };

  return {
    /** Every movement, oldest first: pages, or the whole list streamed. */
    list: (): Listing<StoredMovement> => listed(EVERY_MOVEMENT, {}),
    byPk: (pk: string): StoredMovement | undefined => {
      const row = s.byPk.get(pk);
      return row && toMovement(row);
    },
    /** The movements of a transport unit (by its pKey), oldest first; `undefined` lists match anything. */
    forUnit: (unitPk: string, types?: readonly string[], states?: readonly string[]): StoredMovement[] =>
      s.forUnit.all({ unit: unitPk, types: list(types), states: list(states) }).map(toMovement),
    /** The same as a list: pages, or the whole list streamed. */
    listForUnit: (unitPk: string, types?: readonly string[], states?: readonly string[]): Listing<StoredMovement> =>
      listed(OF_UNIT, { unit: unitPk, types: list(types), states: list(states) }),
    /** The movements recorded for a barcode (of a unit that no longer exists), oldest first. */
    listForBarcode: (barcode: string, types?: readonly string[], states?: readonly string[]): Listing<StoredMovement> =>
      listed(OF_BARCODE, { barcode, types: list(types), states: list(states) }),
    /** Movements whose source location is one of `sourcePks` (any when undefined), in work order. */
    listForSources(states?: readonly string[], types?: readonly string[], sourcePks?: readonly string[]): Listing<StoredMovement> {
      const params = { state: states?.[0], states: list(states), types: list(types), sources: list(sourcePks) };
      return listed(states === undefined ? IN_ANY_STATE : states.length === 1 ? IN_STATE : IN_STATES, params);
    },
    insert: (pk: string, fields: MovementFields, now: string): void => {
      s.insert.run(params(pk, fields, now));
    },
    /** Writes every field; raises `ol` by one. */
    update: (pk: string, fields: MovementFields, now: string): void => {
      s.update.run(params(pk, fields, now));
    },
  };
}

export type MovementStore = ReturnType<typeof createMovementStore>;
