import type { Db } from '../../../core/db.ts';

// The SQL of the addresses users signed in from (user_login_addresses; the rule: ./service.ts).

export function createLoginAddressStore(db: Db) {
  const s = {
    known: db.prepare<[string, string, string], { last_login_dt: string; failed_logins: number }>(
      'SELECT last_login_dt, failed_logins FROM user_login_addresses WHERE user_pk = ? AND address = ? AND last_login_dt > ?',
    ),
    remember: db.prepare(
      `INSERT INTO user_login_addresses (user_pk, address, last_login_dt) VALUES (?, ?, ?)
       ON CONFLICT (user_pk, address) DO UPDATE SET last_login_dt = excluded.last_login_dt, failed_logins = 0`,
    ),
    prune: db.prepare(
      `DELETE FROM user_login_addresses WHERE user_pk = @user AND (last_login_dt <= @since OR address NOT IN (
         SELECT address FROM user_login_addresses WHERE user_pk = @user ORDER BY last_login_dt DESC LIMIT @keep))`,
    ),
    failed: db.prepare<[string, string, string], { failed_logins: number }>(
      `UPDATE user_login_addresses SET failed_logins = failed_logins + 1
       WHERE user_pk = ? AND address = ? AND last_login_dt > ? RETURNING failed_logins`,
    ),
    forget: db.prepare('DELETE FROM user_login_addresses WHERE user_pk = ? AND address = ?'),
  };
  return {
    /** The address's last login and failures in a row, when its last login is after `since`. */
    known: (userPk: string, address: string, since: string) => s.known.get(userPk, address, since),
    /** Known from `at` on, its failures forgotten. */
    remember: (userPk: string, address: string, at: string) => void s.remember.run(userPk, address, at),
    /** Keeps the user's newest `keep` addresses with a login after `since`. */
    prune: (userPk: string, since: string, keep: number) => void s.prune.run({ user: userPk, since, keep }),
    /** Counts a failure from a known address (in SQL: parallel failures each count); its failures in a row, undefined when not known. */
    failedOnce: (userPk: string, address: string, since: string): number | undefined => s.failed.get(userPk, address, since)?.failed_logins,
    forget: (userPk: string, address: string) => void s.forget.run(userPk, address),
  };
}
