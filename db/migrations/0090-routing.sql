-- Routing module (docs/routing.md;
-- decisions in docs/routing.md): routes between locations or location groups, the
-- ordered hops of each route ("at location X, send to Y") and the default hop table
-- for transport units without a transport order.
--
-- Unlike the movements, routes and hops name locations and groups through foreign
-- keys that refuse the delete of what they name: a route that pointed at nothing would
-- route nothing, silently. The common module answers such a delete with 409
-- `…loc.inUse` / `…lg.inUse`. The keys use SQLite's default action (NO ACTION, checked
-- at the end of the DELETE statement, since none is deferred), which refuses exactly as
-- RESTRICT would; RESTRICT itself is not used because SQLite reports its failure as
-- SQLITE_CONSTRAINT_TRIGGER, not SQLITE_CONSTRAINT_FOREIGNKEY, which
-- `isForeignKeyViolation` (src/core/db.ts) does not recognise. Every column that
-- refers to a location or a group is indexed, so that the check on a delete does not
-- scan the table.

CREATE TABLE routes (
  id                 INTEGER PRIMARY KEY,
  -- The route's `key` (its persistent key, `pKey` in replies): sent on create or generated.
  pk                 TEXT NOT NULL UNIQUE,
  name               TEXT NOT NULL UNIQUE,
  description        TEXT,
  -- Source: at most one of location and group; none = the route applies from anywhere.
  source_location_pk TEXT REFERENCES locations (pk),
  source_group_pk    TEXT REFERENCES location_groups (pk),
  -- Target: exactly one of location and group.
  target_location_pk TEXT REFERENCES locations (pk),
  target_group_pk    TEXT REFERENCES location_groups (pk),
  enabled            INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  ol                 INTEGER NOT NULL DEFAULT 0,
  create_dt          TEXT NOT NULL,
  last_modified_dt   TEXT NOT NULL,
  CHECK (source_location_pk IS NULL OR source_group_pk IS NULL),
  CHECK ((target_location_pk IS NULL) <> (target_group_pk IS NULL)),
  -- No self-routes.
  CHECK (source_location_pk IS NULL OR target_location_pk IS NULL OR source_location_pk <> target_location_pk),
  CHECK (source_group_pk IS NULL OR target_group_pk IS NULL OR source_group_pk <> target_group_pk)
);
CREATE INDEX routes_source_location ON routes (source_location_pk);
CREATE INDEX routes_source_group ON routes (source_group_pk);
CREATE INDEX routes_target_location ON routes (target_location_pk);
CREATE INDEX routes_target_group ON routes (target_group_pk);
-- At most one enabled route per source and target: the routing decision is never a coin toss.
CREATE UNIQUE INDEX routes_enabled_ends ON routes (
  coalesce(source_location_pk, ''), coalesce(source_group_pk, ''),
  coalesce(target_location_pk, ''), coalesce(target_group_pk, '')
) WHERE enabled = 1;

-- The ordered hops of a route. `pos` is the place in the list (0, 1, …); several hops
-- with the same source are alternatives, tried in `pos` order.
CREATE TABLE route_hops (
  route_pk           TEXT NOT NULL REFERENCES routes (pk) ON DELETE CASCADE,
  pos                INTEGER NOT NULL CHECK (pos >= 0),
  source_location_pk TEXT NOT NULL REFERENCES locations (pk),
  next_location_pk   TEXT NOT NULL REFERENCES locations (pk),
  PRIMARY KEY (route_pk, pos),
  UNIQUE (route_pk, source_location_pk, next_location_pk),
  CHECK (source_location_pk <> next_location_pk)
) WITHOUT ROWID;
CREATE INDEX route_hops_source ON route_hops (source_location_pk);
CREATE INDEX route_hops_next ON route_hops (next_location_pk);

-- The default hop table (OpenWMS's `_DEFAULT` route): for transport units without a
-- transport order, and when the chosen route has no hop at the unit's location. An
-- entry's source is a location or a location group (meaning every location in it or
-- below it); entries with the same source are alternatives, tried in `pos` order.
CREATE TABLE default_hops (
  pos                INTEGER PRIMARY KEY CHECK (pos >= 0),
  source_location_pk TEXT REFERENCES locations (pk),
  source_group_pk    TEXT REFERENCES location_groups (pk),
  next_location_pk   TEXT NOT NULL REFERENCES locations (pk),
  CHECK ((source_location_pk IS NULL) <> (source_group_pk IS NULL)),
  CHECK (source_location_pk IS NULL OR source_location_pk <> next_location_pk)
);
CREATE UNIQUE INDEX default_hops_location ON default_hops (source_location_pk, next_location_pk)
  WHERE source_location_pk IS NOT NULL;
CREATE UNIQUE INDEX default_hops_group ON default_hops (source_group_pk, next_location_pk)
  WHERE source_group_pk IS NOT NULL;
CREATE INDEX default_hops_next ON default_hops (next_location_pk);
