-- An open transport order (CREATED, INITIALIZED, STARTED) still has to take its unit to
-- its target location or group: deleting that location or group is refused as a
-- foreign key would refuse it (the common module answers 409 …inUse). An ended order
-- keeps only the name, like every other record of history, and blocks nothing.
--
-- The transport-orders module keeps no foreign keys on the common tables (0100); these
-- triggers are the one reference that must hold while an order is open.

CREATE INDEX transport_orders_open_target_location ON transport_orders (target_location_pk)
  WHERE target_location_pk IS NOT NULL AND state IN ('CREATED', 'INITIALIZED', 'STARTED');
CREATE INDEX transport_orders_open_target_group ON transport_orders (target_group_pk)
  WHERE target_group_pk IS NOT NULL AND state IN ('CREATED', 'INITIALIZED', 'STARTED');

CREATE TRIGGER transport_orders_keep_target_location BEFORE DELETE ON locations
WHEN EXISTS (
  SELECT 1 FROM transport_orders
  WHERE target_location_pk = OLD.pk AND state IN ('CREATED', 'INITIALIZED', 'STARTED')
)
BEGIN
  SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed');
END;

CREATE TRIGGER transport_orders_keep_target_group BEFORE DELETE ON location_groups
WHEN EXISTS (
  SELECT 1 FROM transport_orders
  WHERE target_group_pk = OLD.pk AND state IN ('CREATED', 'INITIALIZED', 'STARTED')
)
BEGIN
  SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed');
END;
