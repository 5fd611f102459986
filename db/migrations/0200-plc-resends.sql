-- The PLC's identical resends on a pair (docs/ha.md, "The PLC"): the last telegrams of
-- each OSIP channel with the replies they got, kept in the database only by a box of a
-- pair, so that a PLC that repeats a request whose answer was lost in a failover gets
-- the same answer from the new active instead of a second decision. A ring of slots per
-- channel: the newest telegram takes the oldest slot.
CREATE TABLE plc_resends (
  channel  TEXT    NOT NULL,
  slot     INTEGER NOT NULL CHECK (slot >= 0),
  sender   TEXT    NOT NULL,
  seq      INTEGER NOT NULL,
  -- Type and payload as received (a resend repeats it exactly).
  payload  TEXT    NOT NULL,
  -- When it arrived (ms since the epoch): a resend counts within plc duplicateWindowMs.
  at       INTEGER NOT NULL,
  -- The reply telegrams, as a JSON array of their texts.
  replies  TEXT    NOT NULL,
  PRIMARY KEY (channel, slot)
) STRICT, WITHOUT ROWID;
