-- The hot-standby pair (docs/ha.md): where this box's copy stands in the pair's change
-- log. One row, written by the standby in the same transaction as each entry it
-- applies, so that after a crash it goes on from the entry after the last one it kept.
-- Tables named ha_* are the pair's own bookkeeping and are not copied between the boxes.
CREATE TABLE ha_applied (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  -- The stream sequence of the last entry applied.
  stream_seq  INTEGER NOT NULL CHECK (stream_seq >= 0),
  -- The term of the lease under which that entry was written (src/ha/lease.ts).
  term        INTEGER NOT NULL CHECK (term >= 0)
) STRICT;
