import { randomUUID } from 'node:crypto';
import { SignJWT, errors, exportJWK, generateKeyPair, importJWK, jwtVerify, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../core/db.ts';
import { AuthenticationError } from '../core/errors.ts';

// Access tokens are EdDSA (Ed25519) JWTs. The signing key is generated at first
// start and kept in the database, so tokens survive a restart and a restored backup
// keeps accepting what it issued. A verified token is remembered until it expires:
// checking the same bytes twice would only cost CPU the PLC link needs more.

interface TokenSubject {
  id: string;
  username: string;
  kind: 'user' | 'api-key';
}

interface VerifiedToken extends TokenSubject {
  /** Expiry, epoch seconds. */
  exp: number;
  /** Issued at, epoch seconds. */
  iat: number;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const ALGORITHM = 'EdDSA';
const CACHE_LIMIT = 10_000;

export class TokenService {
  private readonly verified = new Map<string, { token: string; verified: VerifiedToken }>();
  private readonly kid: string;
  private readonly privateKey: CryptoKey;
  private readonly publicKey: CryptoKey;
  private readonly issuer: string;
  private readonly ttlSeconds: number;

  private constructor(kid: string, privateKey: CryptoKey, publicKey: CryptoKey, issuer: string, ttlSeconds: number) {
    this.kid = kid;
    this.privateKey = privateKey;
    this.publicKey = publicKey;
    this.issuer = issuer;
    this.ttlSeconds = ttlSeconds;
  }

  /** Loads the signing key from the database, generating and storing one on first start. */
  static async open(db: Db, options: { issuer: string; ttlSeconds: number }): Promise<TokenService> {
    let row = db.prepare('SELECT kid, private_jwk FROM signing_keys ORDER BY create_dt DESC LIMIT 1').get() as { kid: string; private_jwk: string } | undefined;
    if (!row) {
      const pair = await generateKeyPair(ALGORITHM, { crv: 'Ed25519', extractable: true });
      const jwk = await exportJWK(pair.privateKey);
      row = { kid: randomUUID(), private_jwk: JSON.stringify(jwk) };
      db.prepare('INSERT INTO signing_keys (kid, private_jwk, create_dt) VALUES (?, ?, ?)').run(row.kid, row.private_jwk, new Date().toISOString());
    }
    const jwk = JSON.parse(row.private_jwk) as JWK;
    const privateKey = (await importJWK(jwk, ALGORITHM)) as CryptoKey;
    const { d: _secret, ...publicJwk } = jwk;
    const publicKey = (await importJWK(publicJwk, ALGORITHM)) as CryptoKey;
    return new TokenService(row.kid, privateKey, publicKey, options.issuer, options.ttlSeconds);
  }

  async issue(subject: TokenSubject): Promise<IssuedToken> {
    const token = await new SignJWT({ username: subject.username, kind: subject.kind })
      .setProtectedHeader({ alg: ALGORITHM, kid: this.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setSubject(subject.id)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .setJti(randomUUID())
      .sign(this.privateKey);
    return { access_token: token, token_type: 'Bearer', expires_in: this.ttlSeconds };
  }

  /**
   * A token verified before, without verifying again: undefined when unknown. The
   * cache is keyed by the signature part (short to hash; unique per token) and
   * holds the whole token, compared on a hit.
   */
  cached(token: string): VerifiedToken | undefined {
    const known = this.verified.get(signatureOf(token));
    if (!known || known.token !== token) return undefined;
    if (known.verified.exp > Date.now() / 1000) return known.verified;
    this.verified.delete(signatureOf(token));
    throw expired(known.verified.exp);
  }

  /** Verifies signature, issuer and expiry; every failure is a 401 with the reason. */
  async verify(token: string): Promise<VerifiedToken> {
    const known = this.cached(token);
    if (known) return known;
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.publicKey, { issuer: this.issuer, algorithms: [ALGORITHM] }));
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw expired(Number(err.payload.exp));
      if (err instanceof errors.JWTClaimValidationFailed) throw new AuthenticationError(`Invalid token: ${err.message}`);
      throw new AuthenticationError('Invalid token: the signature or format does not verify');
    }
    if (typeof payload.sub !== 'string' || typeof payload.username !== 'string' || typeof payload.exp !== 'number') {
      throw new AuthenticationError('Invalid token: subject or expiry missing');
    }
    const verified: VerifiedToken = {
      id: payload.sub,
      username: payload.username,
      kind: payload.kind === 'api-key' ? 'api-key' : 'user',
      exp: payload.exp,
      iat: payload.iat ?? 0,
    };
    if (this.verified.size >= CACHE_LIMIT) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(signatureOf(token), { token, verified });
    return verified;
  }
}

/** The third part of a JWT. */
const signatureOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);

function expired(expSeconds: number): AuthenticationError {
  return new AuthenticationError(`JWT expired at ${new Date(expSeconds * 1000).toISOString()}. Current time: ${new Date().toISOString()}`);
}

/** The token of an `Authorization: Bearer …` header; 401 when absent or malformed. */
export function bearerToken(header: string | undefined): string {
  if (!header) throw new AuthenticationError('Authentication required: send Authorization: Bearer <token>');
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  if (!match) throw new AuthenticationError('Malformed Authorization header: expected Bearer <token>');
  return match[1]!;
}
