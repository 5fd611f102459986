import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { nowIso } from '../../../core/time.ts';
import { alreadyExists, AuthenticationError, DomainError, notFound } from '../../../core/errors.ts';
import { USER_KEYS } from '../errors.ts';
import type { RoleService } from '../roles/service.ts';
import type { ApiKey, ApiKeyStore } from './store.ts';

// API keys for machines (ERP, gateways, label printers): `wms_<id>_<secret>`, sent as
// `Authorization: Bearer …` like a token. The secret is shown once, at creation; the
// appliance keeps only its SHA-256 (the secret is 32 random bytes, so a fast hash is
// enough). A key acts with the grants of its role.

const PREFIX = 'wms_';

export const isApiKey = (token: string) => token.startsWith(PREFIX);

const hashOf = (secret: string) => createHash('sha256').update(secret).digest();

export interface NewApiKey {
  name: string;
  roleName: string;
  expiresAt?: string | null | undefined;
}

/**
 * `recordUse`: where a key's last use is written; the store by default, the conveyor
 * thread when keys are checked on the HTTP thread (its connection only reads).
 */
export function createApiKeyService(work: UnitOfWork, store: ApiKeyStore, roles: RoleService, recordUse: (pk: string, at: string) => void = store.used) {
  function byPKey(pKey: string): ApiKey {
    const key = store.byPk(pKey);
    if (!key) throw notFound(`API key with pKey [${pKey}] does not exist`, [pKey]);
    return key;
  }
  /** Last use is written at most once a minute per key: a busy gateway must not cost a write per request. */
  const lastUseWritten = new Map<string, number>();

  return {
    /** Every key by name: pages, or the whole list. */
    list: () => store.list(),
    byPKey,
    findByPk: (pk: string) => store.byPk(pk),
    /** Writes a key's last use (told by the HTTP thread, which checked the key). */
    recordUse: (pk: string, at: string) => store.used(pk, at),

    /** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
    create(input: NewApiKey, createdBy: string): { apiKey: ApiKey; key: string } {
      const keyId = randomBytes(8).toString('hex');
      const secret = randomBytes(32).toString('base64url');
      return work.run(() => {
        if (store.byName(input.name)) throw alreadyExists(`API key [${input.name}] already exists`, [input.name]);
        const role = roles.byName(input.roleName);
        const pk = store.insert(
          {
            name: input.name,
            keyId,
            secretHash: hashOf(secret).toString('hex'),
            rolePk: role.pk,
            roleName: role.name,
            createdBy,
            expiresAt: input.expiresAt ?? null,
          },
          nowIso(),
        );
        work.emit({ type: 'apiKey.created', key: input.name, data: { pKey: pk, name: input.name, roleName: role.name } });
        return { apiKey: byPKey(pk), key: `${PREFIX}${keyId}_${secret}` };
      });
    },

    revoke(pKey: string): void {
      work.run(() => {
        const key = byPKey(pKey);
        if (key.revokedAt) {
          throw new DomainError(409, USER_KEYS.apiKeyAlreadyRevoked, `API key [${key.name}] was revoked at ${key.revokedAt}`, { obj: [key.name] });
        }
        store.revoke(key.pk, nowIso());
        work.emit({ type: 'apiKey.revoked', key: key.name, data: { pKey, name: key.name } });
      });
    },

    /** The key a bearer value names, checked: 401 when unknown, wrong, revoked or expired. */
    verify(bearer: string): ApiKey {
      const rest = bearer.slice(PREFIX.length);
      const cut = rest.indexOf('_');
      const key = cut > 0 ? store.byKeyId(rest.slice(0, cut)) : undefined;
      const secret = cut > 0 ? rest.slice(cut + 1) : '';
      const expected = key ? Buffer.from(key.secretHash, 'hex') : undefined;
      if (!key || !expected || !timingSafeEqual(hashOf(secret), expected)) throw new AuthenticationError('Invalid API key');
      if (key.revokedAt) throw new AuthenticationError(`API key [${key.name}] was revoked`);
      const now = nowIso();
      if (key.expiresAt && key.expiresAt <= now) throw new AuthenticationError(`API key [${key.name}] expired at ${key.expiresAt}`);
      const written = lastUseWritten.get(key.pk) ?? 0;
      if (Date.now() - written > 60_000) {
        lastUseWritten.set(key.pk, Date.now());
        recordUse(key.pk, now);
      }
      return key;
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
