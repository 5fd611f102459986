-- Receiving orders (announced goods receipts), their positions and the captures booked
-- against them. Quantities are kept as exact base-unit counts (see src/core/quantity.ts).

CREATE TABLE receiving_orders (
  pk               TEXT PRIMARY KEY,
  order_id         TEXT NOT NULL UNIQUE,
  state            TEXT NOT NULL DEFAULT 'CREATED' CHECK (state IN ('CREATED', 'PROCESSING', 'PROCESSED', 'CANCELED')),
  details          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details)),
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL
);
CREATE INDEX receiving_orders_created ON receiving_orders (create_dt, order_id);

CREATE TABLE receiving_order_positions (
  pk                     TEXT PRIMARY KEY,
  order_pk               TEXT NOT NULL REFERENCES receiving_orders (pk) ON DELETE CASCADE,
  -- Place in the order as announced: captures fill open positions in this order.
  seq                    INTEGER NOT NULL,
  position_id            TEXT NOT NULL,
  state                  TEXT NOT NULL DEFAULT 'OPEN' CHECK (state IN ('OPEN', 'PROCESSING', 'PROCESSED', 'CANCELED')),
  product_pk             TEXT NOT NULL REFERENCES products (pk),
  qty_expected_family    TEXT NOT NULL CHECK (qty_expected_family IN ('Piece', 'Weight')),
  qty_expected_unit      TEXT NOT NULL,
  qty_expected_base      INTEGER NOT NULL CHECK (qty_expected_base > 0),
  -- Counted in the base unit of the expected quantity's family.
  qty_received_base      INTEGER NOT NULL DEFAULT 0 CHECK (qty_received_base >= 0),
  ol                     INTEGER NOT NULL DEFAULT 0,
  create_dt              TEXT NOT NULL,
  last_modified_dt       TEXT NOT NULL,
  UNIQUE (order_pk, position_id),
  UNIQUE (order_pk, seq)
);
CREATE INDEX receiving_order_positions_product ON receiving_order_positions (product_pk);

-- One row per (captured packaging unit, position it was booked against). The packaging
-- unit belongs to the inventory module and may be moved or emptied later: its key is
-- kept as a reference, not as a foreign key.
CREATE TABLE receiving_captures (
  pk                TEXT PRIMARY KEY,
  order_pk          TEXT NOT NULL REFERENCES receiving_orders (pk) ON DELETE CASCADE,
  position_pk       TEXT NOT NULL REFERENCES receiving_order_positions (pk) ON DELETE CASCADE,
  seq               INTEGER NOT NULL,
  packaging_unit_pk TEXT NOT NULL,
  transport_unit_bk TEXT NOT NULL,
  lu_pos            TEXT NOT NULL,
  quantity_family   TEXT NOT NULL CHECK (quantity_family IN ('Piece', 'Weight')),
  quantity_unit     TEXT NOT NULL,
  quantity_base     INTEGER NOT NULL CHECK (quantity_base > 0),
  create_dt         TEXT NOT NULL,
  UNIQUE (order_pk, seq)
);
CREATE INDEX receiving_captures_position ON receiving_captures (position_pk, seq);
