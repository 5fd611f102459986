-- Transport-orders module (docs/transport-orders.md; docs/routing.md,
-- docs/plc.md; decisions in docs/transport-orders.md): automatic moves of a transport unit
-- from where it stands to a target location and/or a target location group.
--
-- States (numbers as the reference system has them): CREATED(10) → INITIALIZED(20) →
-- STARTED(30) → INTERRUPTED(40) / ONFAILURE(50) / CANCELED(60) / FINISHED(70). The four
-- last ones end an order; states never go backwards. CREATED exists only inside the
-- creating transaction (an order is validated before it is written), so rows hold
-- INITIALIZED or later; the value is allowed for completeness.
--
-- At most one STARTED order per transport unit: the partial unique index below.
--
-- The transport unit, the locations and the groups belong to the common base module; a
-- module reaches another only through its service, so they are referred to by pKey
-- without foreign keys (a unit or location may be deleted while old orders still name
-- it). Next to each pKey the business key as it was when the order was last written is
-- kept: replies show the live name while the record exists, this one when it is gone.
--
-- `id` orders the orders by creation ("oldest first") and survives VACUUM.

CREATE TABLE transport_orders (
  id                     INTEGER PRIMARY KEY,
  pk                     TEXT NOT NULL UNIQUE,
  transport_unit_pk      TEXT NOT NULL,
  transport_unit_bk      TEXT NOT NULL,
  priority               TEXT NOT NULL DEFAULT 'NORMAL' CHECK (priority IN ('LOWEST', 'LOW', 'NORMAL', 'HIGH', 'HIGHEST')),
  state                  TEXT NOT NULL CHECK (state IN ('CREATED', 'INITIALIZED', 'STARTED', 'INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED')),
  -- Where the unit stood when the order was created.
  source_location_pk     TEXT NOT NULL,
  source_location        TEXT NOT NULL,
  -- The target: a location (coordinate), a location group (name), or both (the location then lies in the group's subtree).
  target_location_pk     TEXT,
  target_location        TEXT,
  target_group_pk        TEXT,
  target_location_group  TEXT,
  start_date             TEXT,
  end_date               TEXT,
  -- The last error or problem text.
  message                TEXT,
  ol                     INTEGER NOT NULL DEFAULT 0,
  create_dt              TEXT NOT NULL,
  last_modified_dt       TEXT NOT NULL,
  CHECK (target_location_pk IS NOT NULL OR target_group_pk IS NOT NULL),
  CHECK ((target_location_pk IS NULL) = (target_location IS NULL)),
  CHECK ((target_group_pk IS NULL) = (target_location_group IS NULL)),
  -- Not yet started: no start date; STARTED, INTERRUPTED and FINISHED ones were started.
  CHECK (state NOT IN ('CREATED', 'INITIALIZED') OR start_date IS NULL),
  CHECK (state NOT IN ('STARTED', 'INTERRUPTED', 'FINISHED') OR start_date IS NOT NULL),
  -- Exactly the ended orders have an end date.
  CHECK ((state IN ('INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED')) = (end_date IS NOT NULL))
);
CREATE UNIQUE INDEX transport_orders_one_started ON transport_orders (transport_unit_pk) WHERE state = 'STARTED';
CREATE INDEX transport_orders_unit ON transport_orders (transport_unit_pk, state);
CREATE INDEX transport_orders_unit_bk ON transport_orders (transport_unit_bk);
CREATE INDEX transport_orders_state ON transport_orders (state);
