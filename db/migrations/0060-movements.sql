-- Movements module (docs/movements.md, "States and transitions /
-- Movement"): manual moves of a transport unit from a source location to a target
-- location or location group, executed by a human with equipment.
--
-- States, in this order: INACTIVE < ACTIVE < CANCELLED < DONE. A movement is created
-- INACTIVE; PATCH activates (startedAt) or deactivates it; DELETE cancels it,
-- POST …/complete finishes it (finishedAt). CANCELLED and DONE are final.
--
-- The transport unit, the source location and the target belong to the common base
-- module; a module reaches another only through its service, so they are referred to
-- by their pKeys without foreign keys (a location or unit may be deleted while old
-- movements still name it). Next to each pKey the business key as it was when the
-- movement was last written is kept: the reply shows the live name when the
-- referenced record still exists and this one when it is gone.
--
-- `id` orders the movements by creation and survives VACUUM (a plain rowid may not).

CREATE TABLE movements (
  id                         INTEGER PRIMARY KEY,
  pk                         TEXT NOT NULL UNIQUE,
  transport_unit_pk          TEXT NOT NULL,
  transport_unit_bk          TEXT NOT NULL,
  type                       TEXT NOT NULL CHECK (type IN ('INBOUND', 'OUTBOUND', 'REPLENISHMENT', 'RELOCATION', 'MANUAL')),
  initiator                  TEXT,
  mode                       TEXT NOT NULL CHECK (mode IN ('AUTOMATIC', 'MANUAL')),
  sku                        TEXT,
  priority                   INTEGER NOT NULL CHECK (priority >= 0),
  state                      TEXT NOT NULL DEFAULT 'INACTIVE' CHECK (state IN ('INACTIVE', 'ACTIVE', 'CANCELLED', 'DONE')),
  source_location_pk         TEXT NOT NULL,
  source_location            TEXT NOT NULL,
  source_location_group_name TEXT NOT NULL,
  -- The target is a location (its pKey) or a location group (its pKey).
  target_kind                TEXT NOT NULL CHECK (target_kind IN ('LOCATION', 'GROUP')),
  target_pk                  TEXT NOT NULL,
  target                     TEXT NOT NULL,
  target_location_group      TEXT NOT NULL,
  started_at                 TEXT,
  latest_due_at              TEXT,
  finished_at                TEXT,
  ol                         INTEGER NOT NULL DEFAULT 0,
  create_dt                  TEXT NOT NULL,
  last_modified_dt           TEXT NOT NULL,
  -- INACTIVE has not started (or was deactivated); ACTIVE has; the final states have finished.
  CHECK (state <> 'INACTIVE' OR started_at IS NULL),
  CHECK (state <> 'ACTIVE' OR started_at IS NOT NULL),
  CHECK ((state IN ('CANCELLED', 'DONE')) = (finished_at IS NOT NULL))
);
CREATE INDEX movements_transport_unit ON movements (transport_unit_pk);
CREATE INDEX movements_transport_unit_bk ON movements (transport_unit_bk);
CREATE INDEX movements_source ON movements (source_location_pk);
CREATE INDEX movements_state ON movements (state);
