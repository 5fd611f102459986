-- Foundation: token signing keys, users/roles/grants for the token flow, and the
-- common base module (accounts, location groups, location types, locations,
-- transport unit types, transport units).
--
-- Conventions: `pk` is the opaque persistent key (`pKey` in the API); `ol` counts
-- updates; timestamps are ISO-8601 UTC text with milliseconds, so they sort as text.
-- Business keys are UNIQUE in the schema, not only in code: two writers can never
-- both win.

CREATE TABLE signing_keys (
  kid         TEXT PRIMARY KEY,
  private_jwk TEXT NOT NULL,
  create_dt   TEXT NOT NULL
);

CREATE TABLE users (
  pk                   TEXT PRIMARY KEY,
  username             TEXT NOT NULL UNIQUE,
  password_hash        TEXT,
  last_password_change TEXT,
  external_user        INTEGER NOT NULL DEFAULT 0 CHECK (external_user IN (0, 1)),
  locked               INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
  enabled              INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  expiration_date      TEXT,
  fullname             TEXT,
  failed_logins        INTEGER NOT NULL DEFAULT 0,
  ol                   INTEGER NOT NULL DEFAULT 0,
  create_dt            TEXT NOT NULL,
  last_modified_dt     TEXT NOT NULL
);

CREATE TABLE roles (
  pk               TEXT PRIMARY KEY,
  name             TEXT NOT NULL UNIQUE,
  description      TEXT,
  immutable        INTEGER NOT NULL DEFAULT 0 CHECK (immutable IN (0, 1)),
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL
);

CREATE TABLE grants (
  pk               TEXT PRIMARY KEY,
  name             TEXT NOT NULL UNIQUE,
  description      TEXT,
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL
);

CREATE TABLE user_roles (
  user_pk TEXT NOT NULL REFERENCES users (pk) ON DELETE CASCADE,
  role_pk TEXT NOT NULL REFERENCES roles (pk) ON DELETE CASCADE,
  PRIMARY KEY (user_pk, role_pk)
) WITHOUT ROWID;
CREATE INDEX user_roles_role ON user_roles (role_pk);

CREATE TABLE role_grants (
  role_pk  TEXT NOT NULL REFERENCES roles (pk) ON DELETE CASCADE,
  grant_pk TEXT NOT NULL REFERENCES grants (pk) ON DELETE CASCADE,
  PRIMARY KEY (role_pk, grant_pk)
) WITHOUT ROWID;
CREATE INDEX role_grants_grant ON role_grants (grant_pk);

CREATE TABLE accounts (
  pk               TEXT PRIMARY KEY,
  identifier       TEXT NOT NULL UNIQUE,
  name             TEXT NOT NULL UNIQUE,
  is_default       INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL
);
-- At most one default account.
CREATE UNIQUE INDEX accounts_default ON accounts (is_default) WHERE is_default = 1;

CREATE TABLE location_groups (
  pk               TEXT PRIMARY KEY,
  name             TEXT NOT NULL UNIQUE,
  description      TEXT,
  account_pk       TEXT REFERENCES accounts (pk),
  group_type       TEXT,
  operation_mode   TEXT NOT NULL DEFAULT 'INFEED_AND_OUTFEED'
                   CHECK (operation_mode IN ('INFEED', 'OUTFEED', 'INFEED_AND_OUTFEED', 'NO_OPERATION')),
  parent_pk        TEXT REFERENCES location_groups (pk),
  group_state_in   TEXT NOT NULL DEFAULT 'AVAILABLE' CHECK (group_state_in IN ('AVAILABLE', 'NOT_AVAILABLE')),
  group_state_out  TEXT NOT NULL DEFAULT 'AVAILABLE' CHECK (group_state_out IN ('AVAILABLE', 'NOT_AVAILABLE')),
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL,
  CHECK (parent_pk IS NULL OR parent_pk <> pk)
);
CREATE INDEX location_groups_parent ON location_groups (parent_pk);

CREATE TABLE location_types (
  pk               TEXT PRIMARY KEY,
  type             TEXT NOT NULL UNIQUE,
  description      TEXT,
  length           INTEGER,
  width            INTEGER,
  height           INTEGER,
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL
);

CREATE TABLE locations (
  pk                TEXT PRIMARY KEY,
  location_id       TEXT NOT NULL UNIQUE,
  area              TEXT NOT NULL,
  aisle             TEXT NOT NULL,
  x                 TEXT NOT NULL,
  y                 TEXT NOT NULL,
  z                 TEXT NOT NULL,
  account_pk        TEXT NOT NULL REFERENCES accounts (pk),
  location_group_pk TEXT NOT NULL REFERENCES location_groups (pk),
  location_type_pk  TEXT REFERENCES location_types (pk),
  plc_code          TEXT UNIQUE,
  erp_code          TEXT UNIQUE,
  description       TEXT,
  sort_order        INTEGER,
  stock_zone        TEXT,
  incoming_active   INTEGER NOT NULL DEFAULT 1 CHECK (incoming_active IN (0, 1)),
  outgoing_active   INTEGER NOT NULL DEFAULT 1 CHECK (outgoing_active IN (0, 1)),
  plc_state         INTEGER NOT NULL DEFAULT 0,
  last_movement     TEXT,
  ol                INTEGER NOT NULL DEFAULT 0,
  create_dt         TEXT NOT NULL,
  last_modified_dt  TEXT NOT NULL,
  CHECK (location_id = area || '/' || aisle || '/' || x || '/' || y || '/' || z)
);
CREATE INDEX locations_group ON locations (location_group_pk);
CREATE INDEX locations_coordinate ON locations (area, aisle, x, y, z);
CREATE INDEX locations_type ON locations (location_type_pk);

CREATE TABLE transport_unit_types (
  pk               TEXT PRIMARY KEY,
  type             TEXT NOT NULL UNIQUE,
  description      TEXT,
  length           INTEGER,
  width            INTEGER,
  height           INTEGER,
  weight_tare      REAL,
  weight_max       REAL,
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL
);

CREATE TABLE transport_units (
  pk                     TEXT PRIMARY KEY,
  barcode                TEXT NOT NULL UNIQUE,
  transport_unit_type_pk TEXT NOT NULL REFERENCES transport_unit_types (pk),
  actual_location_pk     TEXT NOT NULL REFERENCES locations (pk),
  actual_location_date   TEXT NOT NULL,
  target_location_pk     TEXT REFERENCES locations (pk),
  state                  TEXT NOT NULL DEFAULT 'AVAILABLE' CHECK (state IN ('AVAILABLE', 'BLOCKED', 'QUALITY_CHECK')),
  weight                 REAL CHECK (weight IS NULL OR weight >= 0),
  ol                     INTEGER NOT NULL DEFAULT 0,
  create_dt              TEXT NOT NULL,
  last_modified_dt       TEXT NOT NULL
);
CREATE INDEX transport_units_location ON transport_units (actual_location_pk);
CREATE INDEX transport_units_type ON transport_units (transport_unit_type_pk);
CREATE INDEX transport_units_target ON transport_units (target_location_pk);
