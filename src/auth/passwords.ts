import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Passwords are stored as `scrypt$N$r$p$salt$hash` (base64url), so the cost can be
// raised later without invalidating stored hashes: each hash carries its own.
// scrypt runs on the libuv pool and never blocks the event loop (or the PLC link).

/** scrypt's N of a new hash unless `auth.passwordHashCost` says otherwise: about 80 ms of one core on a small x64 box. */
export const DEFAULT_PASSWORD_COST = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A new hash at scrypt cost `cost` (N, a power of two). */
export async function hashPassword(password: string, cost = DEFAULT_PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N: cost, r: R, p: P });
  return ['scrypt', cost, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time check; an unknown format never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash that no password matches, checked against for unknown users so timing does not
 * reveal them: one per cost, so that it takes as long as the hashes of real users.
 */
const decoys = new Map<number, Promise<string>>();
export function decoyHash(cost = DEFAULT_PASSWORD_COST): Promise<string> {
  let decoy = decoys.get(cost);
  if (!decoy) decoys.set(cost, (decoy = hashPassword(randomBytes(16).toString('hex'), cost)));
  return decoy;
}

/** A password for the first admin when none was configured: 20 characters, ~120 bits. */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}
