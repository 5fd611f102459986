-- A lock after failed logins expires: `locked_until` is when (NULL: a lock set by an
-- administrator, which lasts until one lifts it). `lockouts` counts the locks after
-- failed logins since the last successful login; each lasts twice as long as the one
-- before, so guessing slows down without locking the owner out for good.
ALTER TABLE users ADD COLUMN locked_until TEXT;
ALTER TABLE users ADD COLUMN lockouts INTEGER NOT NULL DEFAULT 0;
