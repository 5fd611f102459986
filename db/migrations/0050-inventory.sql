-- Inventory module (docs/inventory.md): products, the load units a
-- transport unit is divided into, and the packaging units (amounts of a product) they
-- hold. Decisions: docs/inventory.md.
--
-- Quantities are kept as three columns `<x>_family`, `<x>_unit`, `<x>_base`: the unit
-- family (`Piece`, `Weight`), the unit symbol the quantity was given in (for display)
-- and an exact integer count of the family's base unit (pieces, milligrams), so sums
-- and splits are exact (src/core/quantity.ts). Dimensions are kept as given:
-- `dim_length`, `dim_width`, `dim_height` and their unit `dim_uom` (MM, CM, M).
--
-- Transport units and accounts belong to the common module; the inventory tables
-- point at their rows (same database), but the inventory code reads them only
-- through the common module's services.

CREATE TABLE products (
  pk                  TEXT PRIMARY KEY,
  sku                 TEXT NOT NULL UNIQUE,
  label               TEXT,
  account_pk          TEXT NOT NULL REFERENCES accounts (pk),
  base_unit_family    TEXT NOT NULL CHECK (base_unit_family IN ('Piece', 'Weight')),
  base_unit_unit      TEXT NOT NULL,
  base_unit_base      INTEGER NOT NULL CHECK (base_unit_base > 0),
  overbooking_allowed INTEGER NOT NULL DEFAULT 0 CHECK (overbooking_allowed IN (0, 1)),
  description         TEXT,
  availability_state  TEXT NOT NULL DEFAULT 'AVAILABLE' CHECK (availability_state IN ('LOCKED', 'QC_LOCKED', 'AVAILABLE')),
  classification      TEXT,
  product_group       TEXT,
  stock_zone          TEXT,
  dim_length          REAL,
  dim_width           REAL,
  dim_height          REAL,
  dim_uom             TEXT,
  -- Free attributes: a JSON object of strings.
  details             TEXT NOT NULL DEFAULT '{}' CHECK (json_type(details) = 'object'),
  ol                  INTEGER NOT NULL DEFAULT 0,
  create_dt           TEXT NOT NULL,
  last_modified_dt    TEXT NOT NULL
);
CREATE INDEX products_account ON products (account_pk);

-- Alternative packagings of a product (`units`), in the order the client gave them.
CREATE TABLE product_units (
  pk                TEXT PRIMARY KEY,
  product_pk        TEXT NOT NULL REFERENCES products (pk) ON DELETE CASCADE,
  position          INTEGER NOT NULL,
  label             TEXT,
  quantity_family   TEXT NOT NULL CHECK (quantity_family IN ('Piece', 'Weight')),
  quantity_unit     TEXT NOT NULL,
  quantity_base     INTEGER NOT NULL CHECK (quantity_base >= 0),
  dim_length        REAL,
  dim_width         REAL,
  dim_height        REAL,
  dim_uom           TEXT,
  pieces_per_layer  TEXT,
  numbers_of_layers TEXT,
  carrier_type      TEXT,
  UNIQUE (product_pk, position)
);

-- `stackingRules`: how many of this product may carry the allowed product (by SKU).
CREATE TABLE product_stacking_rules (
  product_pk  TEXT NOT NULL REFERENCES products (pk) ON DELETE CASCADE,
  position    INTEGER NOT NULL,
  no_products INTEGER NOT NULL CHECK (no_products >= 0),
  allowed_sku TEXT NOT NULL,
  PRIMARY KEY (product_pk, position)
) WITHOUT ROWID;

-- A carrier area of a transport unit; `physical_position` is the `luPos` ("1" … "n").
CREATE TABLE load_units (
  pk                TEXT PRIMARY KEY,
  transport_unit_pk TEXT NOT NULL REFERENCES transport_units (pk),
  physical_position TEXT NOT NULL,
  label             TEXT,
  type              TEXT NOT NULL,
  locked            INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
  -- The product the load unit is reserved for.
  product_pk        TEXT REFERENCES products (pk),
  -- Millimetres.
  length            REAL,
  width             REAL,
  height            REAL,
  ol                INTEGER NOT NULL DEFAULT 0,
  create_dt         TEXT NOT NULL,
  last_modified_dt  TEXT NOT NULL,
  UNIQUE (transport_unit_pk, physical_position)
);
CREATE INDEX load_units_product ON load_units (product_pk);

-- An amount of a product in a load unit.
CREATE TABLE packaging_units (
  pk                     TEXT PRIMARY KEY,
  load_unit_pk           TEXT NOT NULL REFERENCES load_units (pk),
  product_pk             TEXT NOT NULL REFERENCES products (pk),
  quantity_family        TEXT NOT NULL CHECK (quantity_family IN ('Piece', 'Weight')),
  quantity_unit          TEXT NOT NULL,
  quantity_base          INTEGER NOT NULL CHECK (quantity_base > 0),
  dim_length             REAL,
  dim_width              REAL,
  dim_height             REAL,
  dim_uom                TEXT,
  weight_family          TEXT CHECK (weight_family IS NULL OR weight_family = 'Weight'),
  weight_unit            TEXT,
  weight_base            INTEGER CHECK (weight_base IS NULL OR weight_base >= 0),
  message                TEXT,
  serial_number          TEXT,
  expires_at             TEXT,
  -- JSON array of strings.
  labels                 TEXT NOT NULL DEFAULT '[]' CHECK (json_type(labels) = 'array'),
  pieces_per_lu_layer    INTEGER CHECK (pieces_per_lu_layer IS NULL OR pieces_per_lu_layer >= 0),
  number_of_lu_layers    INTEGER CHECK (number_of_lu_layers IS NULL OR number_of_lu_layers >= 0),
  -- Blocked by an allocation (shipping); not offered for further allocation or moves.
  allocated              INTEGER NOT NULL DEFAULT 0 CHECK (allocated IN (0, 1)),
  ol                     INTEGER NOT NULL DEFAULT 0,
  create_dt              TEXT NOT NULL,
  last_modified_dt       TEXT NOT NULL,
  CHECK ((weight_family IS NULL) = (weight_base IS NULL))
);
CREATE INDEX packaging_units_load_unit ON packaging_units (load_unit_pk);
CREATE INDEX packaging_units_product ON packaging_units (product_pk, allocated);
