import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import { newPKey } from '../../../core/ids.ts';
import { nowIso } from '../../../core/time.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

// Users, their e-mail addresses, details, image and role memberships.

export interface EmailAddress {
  emailAddress: string;
  primary: boolean;
  fullname?: string | undefined;
}

export interface User extends Versioned {
  username: string;
  passwordHash: string | null;
  lastPasswordChange: string | null;
  /** Tokens issued before this instant are refused. */
  tokensNotBefore: string | null;
  externalUser: boolean;
  /** Locked now: by an administrator, or after failed logins until `lockedUntil`. */
  locked: boolean;
  /** The lock is one after failed logins: it holds against addresses the user never signed in from (login-addresses/service.ts). */
  lockedAfterFailures: boolean;
  /** When a lock after failed logins ends; null for an administrator's lock (and when unlocked). */
  lockedUntil: string | null;
  /** A lock after failed logins has ended but is still recorded: the next login releases it. */
  lockExpired: boolean;
  /** Locks after failed logins since the last successful login. */
  lockouts: number;
  enabled: boolean;
  expirationDate: string | null;
  fullname: string | null;
  failedLogins: number;
  details: Record<string, unknown>;
  emailAddresses: EmailAddress[];
  roleNames: string[];
  image: { contentType: string; size: number } | null;
}

export interface UserFields {
  username: string;
  externalUser: boolean;
  locked: boolean;
  enabled: boolean;
  expirationDate: string | null;
  fullname: string | null;
  details: Record<string, unknown>;
}

interface Row extends VersionedRow {
  username: string;
  password_hash: string | null;
  last_password_change: string | null;
  tokens_not_before: string | null;
  external_user: number;
  locked: number;
  locked_until: string | null;
  locked_after_failures: number;
  lockouts: number;
  enabled: number;
  expiration_date: string | null;
  fullname: string | null;
  failed_logins: number;
  details: string;
  image_type: string | null;
  image_size: number | null;
}

const SELECT = `
  SELECT u.pk, u.username, u.password_hash, u.last_password_change, u.tokens_not_before, u.external_user, u.locked, u.locked_until, u.locked_after_failures, u.lockouts, u.enabled,
         u.expiration_date, u.fullname, u.failed_logins, u.details, i.content_type AS image_type,
         length(i.bytes) AS image_size, u.ol, u.create_dt, u.last_modified_dt
  FROM users u LEFT JOIN user_images i ON i.user_pk = u.pk`;

/**
 * Every user by name, in pages (core/listing.ts). Users of an edge box are few (operators,
 * integrators): the whole list is read at once on the writer's connection.
 */
const EVERY_USER = new KeysetList<Row>({
  sql: `${SELECT} WHERE u.username > @k0 ORDER BY u.username LIMIT @limit`,
  keyOf: (row) => [row.username],
  first: [''],
});

export function createUserStore(db: Db) {
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE u.pk = +?`),
    byName: db.prepare<[string], Row>(`${SELECT} WHERE u.username = +?`),
    count: db.prepare<[], number>('SELECT count(*) FROM users').pluck(),
    emails: db.prepare<[string], { email_address: string; is_primary: number; fullname: string | null }>(
      'SELECT email_address, is_primary, fullname FROM user_email_addresses WHERE user_pk = ? ORDER BY position',
    ),
    roleNames: db.prepare<[string], string>('SELECT r.name FROM user_roles ur JOIN roles r ON r.pk = ur.role_pk WHERE ur.user_pk = +? ORDER BY r.name').pluck(),
    insert: db.prepare(
      `INSERT INTO users (pk, username, external_user, locked, enabled, expiration_date, fullname, details,
         ol, create_dt, last_modified_dt)
       VALUES (@pk, @username, @externalUser, @locked, @enabled, @expirationDate, @fullname, @details, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE users SET username = @username, external_user = @externalUser, locked = @locked, enabled = @enabled,
         expiration_date = @expirationDate, fullname = @fullname, details = @details,
         failed_logins = CASE WHEN @unlocks = 1 THEN 0 ELSE failed_logins END,
         lockouts = CASE WHEN @unlocks = 1 THEN 0 ELSE lockouts END,
         -- A lock after failed logins keeps its end (and its kind) while it lasts; an administrator's is open-ended.
         locked_until = CASE WHEN @locked = 1 AND locked = 1 AND locked_until > @now THEN locked_until ELSE NULL END,
         locked_after_failures = CASE WHEN @locked = 1 AND locked = 1 AND (locked_until IS NULL OR locked_until > @now)
           THEN locked_after_failures ELSE 0 END,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    setPassword: db.prepare(
      `UPDATE users SET password_hash = @hash, last_password_change = @now, tokens_not_before = @now, failed_logins = 0,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    deleteEmails: db.prepare('DELETE FROM user_email_addresses WHERE user_pk = ?'),
    insertEmail: db.prepare(
      `INSERT INTO user_email_addresses (user_pk, position, email_address, is_primary, fullname)
       VALUES (?, ?, ?, ?, ?)`,
    ),
    deleteRoles: db.prepare('DELETE FROM user_roles WHERE user_pk = ?'),
    insertRole: db.prepare('INSERT OR IGNORE INTO user_roles (user_pk, role_pk) VALUES (?, ?)'),
    failedLogin: db.prepare('UPDATE users SET failed_logins = failed_logins + 1 WHERE pk = ? RETURNING failed_logins'),
    lock: db.prepare<[string | null, string, string], { lockouts: number }>(
      `UPDATE users SET locked = 1, locked_until = ?, locked_after_failures = 1, lockouts = lockouts + 1, ol = ol + 1, last_modified_dt = ?
       WHERE pk = ? AND locked = 0 RETURNING lockouts`,
    ),
    releaseLock: db.prepare(
      `UPDATE users SET locked = 0, locked_until = NULL, locked_after_failures = 0, failed_logins = 0, ol = ol + 1, last_modified_dt = ?
       WHERE pk = ? AND locked = 1 AND locked_until <= ?`,
    ),
    loggedIn: db.prepare('UPDATE users SET failed_logins = 0, lockouts = 0 WHERE pk = ? AND (failed_logins <> 0 OR lockouts <> 0)'),
    image: db.prepare<[string], { content_type: string; bytes: Buffer }>('SELECT content_type, bytes FROM user_images WHERE user_pk = ?'),
    saveImage: db.prepare(
      `INSERT INTO user_images (user_pk, content_type, bytes, update_dt) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_pk) DO UPDATE SET content_type = excluded.content_type, bytes = excluded.bytes,
         update_dt = excluded.update_dt`,
    ),
    deleteImage: db.prepare('DELETE FROM user_images WHERE user_pk = ?'),
    touch: db.prepare('UPDATE users SET ol = ol + 1, last_modified_dt = ? WHERE pk = ?'),
    delete: db.prepare('DELETE FROM users WHERE pk = ?'),
    /** Enabled, unlocked users holding the role, other than the given one. */
    otherActiveMembers: db
      .prepare<[string, string], number>(
        `SELECT count(*) FROM user_roles ur JOIN users u ON u.pk = ur.user_pk
         WHERE ur.role_pk = +? AND u.pk <> +? AND u.enabled = 1 AND u.locked = 0`,
      )
      .pluck(),
  };

  const toUser = (row: Row): User => ({
    ...versionedFrom(row),
    username: row.username,
    passwordHash: row.password_hash,
    lastPasswordChange: row.last_password_change,
    tokensNotBefore: row.tokens_not_before,
    externalUser: row.external_user === 1,
    locked: row.locked === 1 && !lockEnded(row),
    lockedAfterFailures: row.locked === 1 && !lockEnded(row) && row.locked_after_failures === 1,
    lockedUntil: row.locked === 1 ? row.locked_until : null,
    lockExpired: row.locked === 1 && lockEnded(row),
    lockouts: row.lockouts,
    enabled: row.enabled === 1,
    expirationDate: row.expiration_date,
    fullname: row.fullname,
    failedLogins: row.failed_logins,
    details: JSON.parse(row.details) as Record<string, unknown>,
    emailAddresses: s.emails.all(row.pk).map((e) => ({
      emailAddress: e.email_address,
      primary: e.is_primary === 1,
      ...(e.fullname !== null ? { fullname: e.fullname } : {}),
    })),
    roleNames: s.roleNames.all(row.pk),
    image: row.image_type ? { contentType: row.image_type, size: row.image_size ?? 0 } : null,
  });
  const lockEnded = (row: Row) => row.locked_until !== null && row.locked_until <= nowIso();
  const one = (row: Row | undefined) => (row ? toUser(row) : undefined);
  const flags = (f: UserFields) => ({
    ...f,
    externalUser: f.externalUser ? 1 : 0,
    locked: f.locked ? 1 : 0,
    enabled: f.enabled ? 1 : 0,
    details: JSON.stringify(f.details),
  });

  return {
    list: (): Listing<User> => EVERY_USER.listing(db, {}, (rows) => rows.map(toUser)),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    byName: (username: string) => one(s.byName.get(username)),
    count: () => s.count.get()!,
    insert(fields: UserFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...flags(fields), pk, now });
      return pk;
    },
    /** `unlocks`: the update releases a locked account, which also forgets its failed logins. */
    update: (pk: string, fields: UserFields, unlocks: boolean, now: string) => s.update.run({ ...flags(fields), unlocks: unlocks ? 1 : 0, pk, now }),
    /** Sets the password; tokens issued before now stop working. */
    setPassword: (pk: string, hash: string, now: string) => s.setPassword.run({ hash, now, pk }),
    setEmails(pk: string, emails: readonly EmailAddress[]) {
      s.deleteEmails.run(pk);
      emails.forEach((e, i) => s.insertEmail.run(pk, i, e.emailAddress, e.primary ? 1 : 0, e.fullname ?? null));
    },
    setRoles(pk: string, rolePks: readonly string[]) {
      s.deleteRoles.run(pk);
      for (const rolePk of rolePks) s.insertRole.run(pk, rolePk);
    },
    addRole: (pk: string, rolePk: string) => s.insertRole.run(pk, rolePk),
    /** Counts a failed login; returns the number of failures in a row. */
    failedLogin: (pk: string) => (s.failedLogin.get(pk) as { failed_logins: number }).failed_logins,
    /** Locks an unlocked account (until `until`, or open-ended); the number of such locks in a row, or undefined when it was locked already. */
    lock: (pk: string, until: string | null, now: string) => s.lock.get(until, now, pk)?.lockouts,
    /** Lifts a lock after failed logins that has ended; whether there was one. */
    releaseLock: (pk: string, now: string) => s.releaseLock.run(now, pk, now).changes === 1,
    /** A successful login: failures and lockouts start again from nothing. */
    loggedIn: (pk: string) => s.loggedIn.run(pk),
    image: (pk: string) => s.image.get(pk),
    saveImage: (pk: string, contentType: string, bytes: Buffer, now: string) => {
      s.saveImage.run(pk, contentType, bytes, now);
      s.touch.run(now, pk);
    },
    deleteImage: (pk: string, now: string) => {
      s.deleteImage.run(pk);
      s.touch.run(now, pk);
    },
    delete: (pk: string) => s.delete.run(pk),
    otherActiveMembers: (rolePk: string, userPk: string) => s.otherActiveMembers.get(rolePk, userPk)!,
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
