import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

// API keys: long-lived credentials for machines, stored as a hash of their secret.

export interface ApiKey extends Versioned {
  name: string;
  keyId: string;
  secretHash: string;
  /** Null once the role of a revoked key was deleted. */
  rolePk: string | null;
  roleName: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

interface Row extends VersionedRow {
  name: string;
  key_id: string;
  secret_hash: string;
  role_pk: string | null;
  role_name: string;
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

const SELECT = `
  SELECT k.pk, k.name, k.key_id, k.secret_hash, k.role_pk, coalesce(r.name, k.role_name) AS role_name, k.created_by,
         k.expires_at, k.revoked_at, k.last_used_at, k.ol, k.create_dt, k.last_modified_dt
  FROM api_keys k LEFT JOIN roles r ON r.pk = k.role_pk`;

/**
 * Every key by name, in pages (core/listing.ts). A site has a few (one per machine that
 * calls): the whole list is read at once on the writer's connection.
 */
const EVERY_KEY = new KeysetList<Row>({ sql: `${SELECT} WHERE k.name > @k0 ORDER BY k.name LIMIT @limit`, keyOf: (row) => [row.name], first: [''] });

export function createApiKeyStore(db: Db) {
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE k.pk = +?`),
    byName: db.prepare<[string], Row>(`${SELECT} WHERE k.name = +?`),
    byKeyId: db.prepare<[string], Row>(`${SELECT} WHERE k.key_id = +?`),
    insert: db.prepare(
      `INSERT INTO api_keys (pk, name, key_id, secret_hash, role_pk, role_name, created_by, expires_at, ol, create_dt,
         last_modified_dt)
       VALUES (@pk, @name, @keyId, @secretHash, @rolePk, @roleName, @createdBy, @expiresAt, 0, @now, @now)`,
    ),
    revoke: db.prepare('UPDATE api_keys SET revoked_at = ?, ol = ol + 1, last_modified_dt = ? WHERE pk = ? AND revoked_at IS NULL'),
    used: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE pk = ?'),
  };
  const toKey = (row: Row): ApiKey => ({
    ...versionedFrom(row),
    name: row.name,
    keyId: row.key_id,
    secretHash: row.secret_hash,
    rolePk: row.role_pk,
    roleName: row.role_name,
    createdBy: row.created_by,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  });
  const one = (row: Row | undefined) => (row ? toKey(row) : undefined);
  return {
    list: (): Listing<ApiKey> => EVERY_KEY.listing(db, {}, (rows) => rows.map(toKey)),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    byName: (name: string) => one(s.byName.get(name)),
    byKeyId: (keyId: string) => one(s.byKeyId.get(keyId)),
    insert(
      fields: {
        name: string;
        keyId: string;
        secretHash: string;
        rolePk: string;
        roleName: string;
        createdBy: string;
        expiresAt: string | null;
      },
      now: string,
    ): string {
      const pk = newPKey();
      s.insert.run({ ...fields, pk, now });
      return pk;
    },
    revoke: (pk: string, now: string) => s.revoke.run(now, now, pk),
    used: (pk: string, now: string) => s.used.run(now, pk),
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
