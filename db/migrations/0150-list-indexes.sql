-- Lists read in keyset pages and chunks (src/core/listing.ts): each reads the rows after
-- the last key it gave, in the list's order, `LIMIT n`. An index in that order makes a
-- page cost the rows it answers, on the last page as on the first; without one every
-- page would sort all the rows it filters.

-- The location wildcard search (src/modules/common/locations/search.ts): an exact part
-- is one key of its index, read in coordinate order, wherever a wildcard stands in the
-- others. An exact area (or a literal start of the coordinate) is a range of the unique
-- index of location_id, which is area/aisle/x/y/z; the index of all five parts served
-- only a search whose area was exact, so it goes.
DROP INDEX locations_coordinate;
CREATE INDEX locations_aisle ON locations (aisle, location_id);
CREATE INDEX locations_x ON locations (x, location_id);
CREATE INDEX locations_y ON locations (y, location_id);
CREATE INDEX locations_z ON locations (z, location_id);

-- Locations of a group, in coordinate order.
DROP INDEX locations_group;
CREATE INDEX locations_group ON locations (location_group_pk, location_id);

-- Transport units on a location, by barcode.
DROP INDEX transport_units_location;
CREATE INDEX transport_units_location ON transport_units (actual_location_pk, barcode);

-- Load units by transport unit and position ("1" … "n" as numbers, other names after
-- them), the order of their lists.
CREATE INDEX load_units_position
  ON load_units (transport_unit_pk, CAST(physical_position AS INTEGER) = 0, CAST(physical_position AS INTEGER), physical_position);

-- Packaging units oldest first, all of them and those of a product not allocated.
CREATE INDEX packaging_units_created ON packaging_units (create_dt);
DROP INDEX packaging_units_product;
CREATE INDEX packaging_units_product ON packaging_units (product_pk, allocated, create_dt);

-- Movements in a state in work order (priority, the earliest due first and none last,
-- then the oldest): an operator's work queue.
DROP INDEX movements_state;
CREATE INDEX movements_work_order ON movements (state, priority, latest_due_at IS NULL, coalesce(latest_due_at, ''));

-- Shipping orders oldest first (create_dt, then orderId): all of them and those in a state.
CREATE INDEX shipping_orders_created ON shipping_orders (create_dt, order_id);
DROP INDEX shipping_orders_state;
CREATE INDEX shipping_orders_state ON shipping_orders (state, create_dt, order_id);
