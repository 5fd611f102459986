-- User administration: e-mail addresses, details and image of users, grants the
-- route table defines (system grants), and API keys for machines.

ALTER TABLE users ADD COLUMN details TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details));
-- Tokens issued before this instant are refused (set when the password changes).
ALTER TABLE users ADD COLUMN tokens_not_before TEXT;

CREATE TABLE user_email_addresses (
  user_pk       TEXT NOT NULL REFERENCES users (pk) ON DELETE CASCADE,
  position      INTEGER NOT NULL,
  email_address TEXT NOT NULL,
  is_primary    INTEGER NOT NULL DEFAULT 0 CHECK (is_primary IN (0, 1)),
  fullname      TEXT,
  PRIMARY KEY (user_pk, position)
) WITHOUT ROWID;
-- At most one primary address per user, also when two writers race.
CREATE UNIQUE INDEX user_email_addresses_primary ON user_email_addresses (user_pk) WHERE is_primary = 1;

CREATE TABLE user_images (
  user_pk      TEXT PRIMARY KEY REFERENCES users (pk) ON DELETE CASCADE,
  content_type TEXT NOT NULL,
  bytes        BLOB NOT NULL,
  update_dt    TEXT NOT NULL
);

-- Grants named by routes: the appliance needs them, so they are not renamed or deleted.
ALTER TABLE grants ADD COLUMN system INTEGER NOT NULL DEFAULT 0 CHECK (system IN (0, 1));

CREATE TABLE api_keys (
  pk               TEXT PRIMARY KEY,
  name             TEXT NOT NULL UNIQUE,
  key_id           TEXT NOT NULL UNIQUE,
  secret_hash      TEXT NOT NULL,
  -- A revoked key stays listed after its role is gone; it keeps the role's name.
  role_pk          TEXT REFERENCES roles (pk) ON DELETE SET NULL,
  role_name        TEXT NOT NULL,
  created_by       TEXT NOT NULL,
  expires_at       TEXT,
  revoked_at       TEXT,
  last_used_at     TEXT,
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL
);
CREATE INDEX api_keys_role ON api_keys (role_pk);
