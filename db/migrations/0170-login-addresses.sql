-- Where each user signed in from: the client addresses of its successful logins (the TCP
-- peer as the appliance sees it), for the rule of src/modules/users/login-addresses.ts.
-- A lock after failed logins holds against guesses from other addresses only, and the
-- per-address limit on login attempts does not hold up a user's login from these.
-- `failed_logins` counts the failures in a row from the address; at five it is
-- forgotten, and guesses from it count against the account as anyone's.
CREATE TABLE user_login_addresses (
  user_pk       TEXT NOT NULL REFERENCES users (pk) ON DELETE CASCADE,
  address       TEXT NOT NULL,
  last_login_dt TEXT NOT NULL,
  failed_logins INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_pk, address)
) WITHOUT ROWID;

-- A lock after failed logins holds against unknown addresses; an administrator's against all.
ALTER TABLE users ADD COLUMN locked_after_failures INTEGER NOT NULL DEFAULT 0 CHECK (locked_after_failures IN (0, 1));
