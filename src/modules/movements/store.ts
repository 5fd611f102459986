import type { Db } from '../../core/db.ts';
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
  SELECT pk, transport_unit_pk, transport_unit_bk, type, initiator, mode, sku, priority, state,
         source_location_pk, source_location, source_location_group_name,
         target_kind, target_pk, target, target_location_group,
         started_at, latest_due_at, finished_at, ol, create_dt, last_modified_dt
  FROM movements`;

/** Work order: a lower priority value first, then the earliest due (none last), then the oldest. */
const PRECEDENCE = 'ORDER BY priority, latest_due_at IS NULL, latest_due_at, id';

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

export function createMovementStore(db: Db) {
  const s = {
    all: db.prepare<[], Row>(`${SELECT} ORDER BY id`),
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE pk = ?`),
    forUnit: db.prepare<[Filter & { unit: string }], Row>(
      `${SELECT} WHERE transport_unit_pk = +@unit
         AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types)))
         AND (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
       ORDER BY id`,
    ),
    forBarcode: db.prepare<[Filter & { barcode: string }], Row>(
      `${SELECT} WHERE transport_unit_bk = +@barcode
         AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types)))
         AND (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
       ORDER BY id`,
    ),
    forSources: db.prepare<[Filter & { sources: string | null }], Row>(
      `${SELECT} WHERE (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
         AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types)))
         AND (@sources IS NULL OR source_location_pk IN (SELECT value FROM json_each(@sources)))
       ${PRECEDENCE}`,
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
    /** Every movement, oldest first. */
    all: (): StoredMovement[] => s.all.all().map(toMovement),
    byPk: (pk: string): StoredMovement | undefined => {
      const row = s.byPk.get(pk);
      return row && toMovement(row);
    },
    /** The movements of a transport unit (by its pKey), oldest first; `undefined` lists match anything. */
    forUnit: (unitPk: string, types?: readonly string[], states?: readonly string[]): StoredMovement[] =>
      s.forUnit.all({ unit: unitPk, types: list(types), states: list(states) }).map(toMovement),
    /** The movements recorded for a barcode (of a unit that no longer exists), oldest first. */
    forBarcode: (barcode: string, types?: readonly string[], states?: readonly string[]): StoredMovement[] =>
      s.forBarcode.all({ barcode, types: list(types), states: list(states) }).map(toMovement),
    /** Movements whose source location is one of `sourcePks` (any when undefined), in work order. */
    forSources: (states?: readonly string[], types?: readonly string[], sourcePks?: readonly string[]): StoredMovement[] =>
      s.forSources.all({ states: list(states), types: list(types), sources: list(sourcePks) }).map(toMovement),
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
