import { embeddedAssets, sourceAssets } from './embedded.ts';

// The HMI's files as the appliance serves them: each in its own bytes and, built once
// ahead of time, gzip and brotli. In the bundle (and so in the single executable) they
// are embedded by scripts/build.ts; run from source (tests, development) they are built
// with esbuild on the first request for them and kept for the life of the process.

export interface HmiAsset {
  /** Content-Type. */
  type: string;
  /** A content-hashed name, cached for a year; index.html is revalidated on every load. */
  immutable: boolean;
  /** Hash of the content; the ETag of each encoding is derived from it. */
  hash: string;
  identity: Buffer;
  /** Absent when compressing does not make the file smaller. */
  gzip?: Buffer | undefined;
  br?: Buffer | undefined;
}

export type AssetTable = ReadonlyMap<string, HmiAsset>;

/** How an asset is written into the bundle: bytes as base64 text. */
export interface SerializedAsset {
  type: string;
  immutable: boolean;
  hash: string;
  identity: string;
  gzip?: string;
  br?: string;
}

export const serializeAsset = (a: HmiAsset): SerializedAsset => ({
  type: a.type,
  immutable: a.immutable,
  hash: a.hash,
  identity: a.identity.toString('base64'),
  ...(a.gzip ? { gzip: a.gzip.toString('base64') } : {}),
  ...(a.br ? { br: a.br.toString('base64') } : {}),
});

const deserializeAsset = (a: SerializedAsset): HmiAsset => ({
  type: a.type,
  immutable: a.immutable,
  hash: a.hash,
  identity: Buffer.from(a.identity, 'base64'),
  gzip: a.gzip === undefined ? undefined : Buffer.from(a.gzip, 'base64'),
  br: a.br === undefined ? undefined : Buffer.from(a.br, 'base64'),
});

let table: Promise<AssetTable> | undefined;

/**
 * The asset table, made on first use: decoded from the bundle, or built from source. Never
 * at start-up (an appliance that nobody opens in a browser pays nothing), and once per
 * process however many appliances it runs (tests start many). A failed source build is
 * tried again by the next request.
 */
export function hmiAssets(): Promise<AssetTable> {
  table ??= load().catch((err: unknown) => {
    table = undefined;
    throw err;
  });
  return table;
}

async function load(): Promise<AssetTable> {
  if (embeddedAssets) return new Map(Object.entries(embeddedAssets).map(([name, a]) => [name, deserializeAsset(a)]));
  if (!sourceAssets) throw new Error('the HMI assets are neither embedded nor buildable from source');
  return sourceAssets();
}

export type Encoding = 'br' | 'gzip' | 'identity';

/**
 * The encoding to answer with: the one of br and gzip the client weighs highest
 * (`Accept-Encoding`, q-values, `*`), br on a tie; identity when it accepts neither or
 * the asset has no smaller form.
 */
export function chooseEncoding(header: string | undefined, asset: HmiAsset): Encoding {
  if (!header) return 'identity';
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!name) continue;
    let q = 1;
    for (const p of params) if (p.startsWith('q=')) q = Number(p.slice(2)) || 0;
    weights.set(name, q);
  }
  const weight = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  const br = asset.br ? weight('br') : 0;
  const gzip = asset.gzip ? Math.max(weight('gzip'), weights.get('x-gzip') ?? 0) : 0;
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return 'identity';
}

/** The ETag of one encoding of an asset: the encodings are different bytes, so different tags. */
export const etagOf = (asset: HmiAsset, encoding: Encoding) => `"${asset.hash}${encoding === 'identity' ? '' : encoding === 'br' ? '-br' : '-gz'}"`;

/**
 * `If-None-Match` names what the client holds of this asset (any of its encodings: the
 * same content either way, and GET compares weakly).
 */
export function notModified(header: string | undefined, asset: HmiAsset): boolean {
  if (!header) return false;
  const held = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (held.includes('*')) return true;
  return (['identity', 'br', 'gzip'] as const).some((encoding) => held.includes(etagOf(asset, encoding)));
}
