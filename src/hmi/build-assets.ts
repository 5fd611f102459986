import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { serializeAsset, type AssetTable, type HmiAsset } from './assets.ts';

// Builds the HMI from src/hmi/app: esbuild bundles src/hmi/app/main.tsx (Preact's JSX
// runtime, minified, one lazily loaded chunk per screen, file names carrying their
// content hash), writes index.html naming those files, and compresses every file with
// gzip and brotli at their highest levels. Used by scripts/build.ts, which embeds the
// result in the bundle, and by an appliance run from source (src/hmi/embedded.ts).
// Never part of the bundle.

const APP = path.join(path.dirname(fileURLToPath(import.meta.url)), 'app');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The tab's icon: a box on a conveyor, drawn inline (no image file to keep in step). */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b3d91"/>' +
  '<path d="M9 8h14v11H9z" fill="#ffd400"/><path d="M5 23h22v3H5z" fill="#fff"/><circle cx="9" cy="24.5" r="1" fill="#0b3d91"/>' +
  '<circle cx="16" cy="24.5" r="1" fill="#0b3d91"/><circle cx="23" cy="24.5" r="1" fill="#0b3d91"/></svg>';

export async function buildHmiAssets(): Promise<AssetTable> {
  const result = await build({
    entryPoints: [{ in: path.join(APP, 'main.tsx'), out: 'app' }],
    outdir: '/hmi',
    write: false,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    // Panel PCs and handhelds run browsers a few years old.
    target: ['es2020', 'chrome87', 'firefox78', 'safari15'],
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    charset: 'utf8',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    logLevel: 'silent',
  });
  const files = new Map<string, Buffer>();
  for (const file of result.outputFiles) files.set(path.basename(file.path), Buffer.from(file.contents));

  // With splitting, every lazily loaded screen is an entry point of its own too: the
  // page's script is the output of main.tsx.
  const entry = Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint !== undefined && path.basename(out.entryPoint) === 'main.tsx');
  if (!entry) throw new Error('esbuild produced no entry file for the HMI');
  const script = path.basename(entry[0]);
  const style = entry[1].cssBundle ? path.basename(entry[1].cssBundle) : undefined;
  // The chunks the entry imports statically are fetched with it, not after it.
  const preload = entry[1].imports.filter((i) => i.kind === 'import-statement').map((i) => path.basename(i.path));
  const icon = `icon-${contentHash(Buffer.from(ICON)).slice(0, 8)}.svg`;
  files.set(icon, Buffer.from(ICON));
  files.set('index.html', Buffer.from(indexHtml(script, preload, style, icon)));

  const table = new Map<string, HmiAsset>();
  for (const [name, identity] of files) {
    const type = TYPES[path.extname(name)];
    if (!type) throw new Error(`HMI build: no content type for ${name}`);
    table.set(name, compressed(name, type, identity));
  }
  return table;
}

/**
 * The page: no inline script or style (the Content-Security-Policy forbids both), every
 * URL relative, so the HMI also works behind a reverse proxy that serves it under a prefix.
 */
function indexHtml(script: string, preload: readonly string[], style: string | undefined, icon: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<title>Warehouse appliance</title>',
    `<link rel="icon" href="${icon}" type="image/svg+xml">`,
    ...(style ? [`<link rel="stylesheet" href="${style}">`] : []),
    `<script type="module" src="${script}"></script>`,
    ...preload.map((chunk) => `<link rel="modulepreload" href="${chunk}">`),
    '</head>',
    '<body>',
    '<div id="app"></div>',
    '<noscript>This page needs JavaScript. Diese Seite braucht JavaScript.</noscript>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function compressed(name: string, type: string, identity: Buffer): HmiAsset {
  const hash = contentHash(identity);
  const gzip = once(hash, 'gz', () => gzipSync(identity, { level: 9 }));
  const br = once(hash, 'br', () =>
    brotliCompressSync(identity, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: type.startsWith('text/') || type === 'image/svg+xml' ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
        [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
  );
  return {
    type,
    immutable: name !== 'index.html',
    hash,
    identity,
    gzip: gzip.length < identity.length ? gzip : undefined,
    br: br.length < identity.length ? br : undefined,
  };
}

/**
 * A file's compression at the highest level, made once per content: brotli's takes
 * seconds, and every thread and process that runs the appliance from source (the tests
 * start hundreds, each HTTP thread builds its own table) would pay it again. Kept in
 * the temporary folder under the content's hash, so a changed file is compressed anew.
 */
function once(hash: string, encoding: 'br' | 'gz', compress: () => Buffer): Buffer {
  const dir = path.join(tmpdir(), 'wms-hmi-compressed');
  const file = path.join(dir, `${hash}.${encoding}`);
  try {
    return readFileSync(file);
  } catch {
    const bytes = compress();
    try {
      mkdirSync(dir, { recursive: true });
      // Written aside and renamed: a reader never sees half a file.
      const partial = `${file}.${process.pid}.${threadId}.tmp`;
      writeFileSync(partial, bytes);
      renameSync(partial, file);
    } catch {
      // A cache that cannot be written only costs the next build the compression.
    }
    return bytes;
  }
}

const contentHash = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64url').slice(0, 22);

/**
 * The text that replaces src/hmi/embedded.ts in the bundle: the table, with nothing
 * left to build it from source.
 */
export function embeddedModule(table: AssetTable): string {
  const serialized = Object.fromEntries([...table].map(([name, asset]) => [name, serializeAsset(asset)]));
  return `export const embeddedAssets = ${JSON.stringify(serialized)};\nexport const sourceAssets = undefined;\n`;
}

/** Bytes of each encoding, for the build's summary line. */
export function sizes(table: AssetTable): { files: number; identity: number; gzip: number; br: number } {
  let identity = 0;
  let gzip = 0;
  let br = 0;
  for (const asset of table.values()) {
    identity += asset.identity.length;
    gzip += (asset.gzip ?? asset.identity).length;
    br += (asset.br ?? asset.identity).length;
  }
  return { files: table.size, identity, gzip, br };
}
