-- Preferences module (docs/preferences.md): configuration values
-- in a scope. One table for the four kinds; `kind` is the scope token of the API
-- (APPLICATION, MODULE, ROLE, USER), `owner` the user, role or module name, NULL for
-- application preferences. `value` is kept as text, as the API returns it.
--
-- A preference is identified by kind, owner and key. Application preferences have no
-- owner and SQL never finds two NULLs equal, so the unique index compares
-- coalesce(owner, '') instead; owners are never empty (CHECK), so '' means "none".
-- Queries compare `coalesce(owner, '')` too, and so use that index.

CREATE TABLE preferences (
  pk               TEXT PRIMARY KEY,
  kind             TEXT NOT NULL CHECK (kind IN ('APPLICATION', 'MODULE', 'ROLE', 'USER')),
  owner            TEXT CHECK (owner <> ''),
  key              TEXT NOT NULL CHECK (key <> ''),
  description      TEXT,
  value            TEXT NOT NULL,
  group_name       TEXT,
  type             TEXT NOT NULL CHECK (type IN ('FLOAT', 'INT', 'STRING', 'BOOL', 'OBJECT', 'JSON')),
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL,
  -- Application preferences, and only they, have no owner.
  CHECK ((kind = 'APPLICATION') = (owner IS NULL))
);

CREATE UNIQUE INDEX preferences_identity ON preferences (kind, coalesce(owner, ''), key);
