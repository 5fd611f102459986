-- Shipping orders and their positions: an amount of a product, or a dedicated
-- transport unit. Quantities are kept as exact base-unit counts (see src/core/quantity.ts).

CREATE TABLE shipping_orders (
  pk                TEXT PRIMARY KEY,
  order_id          TEXT NOT NULL UNIQUE,
  customer_order_id TEXT,
  customer_no       TEXT,
  state             TEXT NOT NULL DEFAULT 'CREATED' CHECK (state IN ('CREATED', 'AVAILABLE', 'PROCESSING', 'PROCESSED',
                      'COMMISSIONING', 'ON_TRUCK', 'FAILURE_WMS', 'FAILURE_TMS', 'COMPLETED')),
  start_mode        TEXT CHECK (start_mode IN ('MANUAL', 'AUTOMATIC')),
  shipping_type     TEXT,
  priority          INTEGER,
  latest_due_date   TEXT,
  start_date        TEXT,
  details           TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details)),
  ol                INTEGER NOT NULL DEFAULT 0,
  create_dt         TEXT NOT NULL,
  last_modified_dt  TEXT NOT NULL
);
CREATE INDEX shipping_orders_state ON shipping_orders (state);

CREATE TABLE shipping_order_positions (
  pk                       TEXT PRIMARY KEY,
  order_pk                 TEXT NOT NULL REFERENCES shipping_orders (pk) ON DELETE CASCADE,
  pos                      TEXT NOT NULL,
  kind                     TEXT NOT NULL CHECK (kind IN ('PRODUCT', 'TRANSPORT_UNIT')),
  state                    TEXT NOT NULL DEFAULT 'CREATED' CHECK (state IN ('CREATED', 'AVAILABLE', 'PROCESSING',
                             'PROCESSED', 'COMMISSIONING', 'ON_TRUCK', 'FAILURE_WMS', 'FAILURE_TMS', 'COMPLETED')),
  priority                 INTEGER,
  details                  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details)),
  target_name              TEXT,
  product_pk               TEXT REFERENCES products (pk),
  qty_ordered_family       TEXT,
  qty_ordered_unit         TEXT,
  qty_ordered_base         INTEGER CHECK (qty_ordered_base IS NULL OR qty_ordered_base >= 0),
  qty_crossdock_family     TEXT,
  qty_crossdock_unit       TEXT,
  qty_crossdock_base       INTEGER CHECK (qty_crossdock_base IS NULL OR qty_crossdock_base >= 0),
  transport_unit_bk        TEXT,
  transport_unit_type_name TEXT,
  ol                       INTEGER NOT NULL DEFAULT 0,
  create_dt                TEXT NOT NULL,
  last_modified_dt         TEXT NOT NULL,
  UNIQUE (order_pk, pos),
  -- A product position names a product and an ordered quantity; a transport unit position a barcode.
  CHECK (kind <> 'PRODUCT' OR (product_pk IS NOT NULL AND qty_ordered_base IS NOT NULL)),
  CHECK (kind <> 'TRANSPORT_UNIT' OR transport_unit_bk IS NOT NULL)
);
CREATE INDEX shipping_order_positions_product ON shipping_order_positions (product_pk);
