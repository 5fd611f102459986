// Bundles the appliance into one CommonJS file, dist/wms.cjs, with SQL migrations
// inlined as text, the HMI's files (src/hmi/app, built and compressed) embedded, and the
// native addons (SQLite, serial lines) copied beside it. `npm start` runs this
// bundle; `npm run build:bin` wraps the same bundle into the single executable.
//
//   node scripts/build.ts [--quiet]

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import type { AssetTable } from '../src/hmi/assets.ts';
import { buildHmiAssets, embeddedModule, sizes } from '../src/hmi/build-assets.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
export const BUNDLE = path.join(DIST, 'wms.cjs');
export const ADDON = path.join(DIST, 'better_sqlite3.node');
export const SERIAL_ADDON = path.join(DIST, 'serialport.node');
/** The OPC UA signal driver, a bundle of its own beside the appliance's (plc/signals/opcua/load-bundled.ts). */
export const OPCUA_DRIVER = path.join(DIST, 'opcua-driver.cjs');
/** The NATS client of the hub link and the pair, a bundle of its own beside the appliance's (src/nats/client.ts). */
export const NATS_CLIENT = path.join(DIST, 'nats-client.cjs');
/** `wms simulate --protocol opcua`: node-opcua's server, a bundle of its own beside the appliance's. */
export const OPCUA_SIMULATOR = path.join(DIST, 'opcua-simulator.cjs');

/** The prebuilt SQLite addon shipped inside the better-sqlite3 package for this platform. */
export function sqlitePrebuild(platform = process.platform, arch = process.arch): string {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('better-sqlite3/package.json'));
  return path.join(pkg, 'prebuilds', `${platform}-${arch}.node`);
}

/** The prebuilt serial line addon of @serialport/bindings-cpp for this platform (glibc). */
export function serialPrebuild(platform = process.platform, arch = process.arch): string {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('@serialport/bindings-cpp/package.json'));
  const variant = arch === 'arm64' ? 'armv8.glibc' : arch === 'arm' ? 'armv7.glibc' : 'glibc';
  return path.join(pkg, 'prebuilds', `${platform}-${arch}`, `@serialport+bindings-cpp.${variant}.node`);
}

/**
 * @serialport/bindings-cpp finds its addon with `node-gyp-build(<its own folder>)`, a
 * folder a bundle does not have. Inside the bundle that call is answered by the
 * appliance's own loader (src/core/native.ts), which knows where the addon is.
 */
const serialBindingLoader: Plugin = {
  name: 'serial-binding-loader',
  setup(b) {
    b.onResolve({ filter: /^node-gyp-build$/ }, (args) =>
      args.importer.includes(`${path.sep}@serialport${path.sep}bindings-cpp${path.sep}`) ? { path: 'serial-binding', namespace: 'wms-native' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'wms-native' }, () => ({
      contents: `const { serialBinding } = require(${JSON.stringify(path.join(ROOT, 'src/core/native.ts'))});
module.exports = () => serialBinding();`,
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};

/**
 * The OPC UA driver stays out of the appliance's bundle: node-opcua is 4.7 MB of code
 * that, bundled in, every start would parse and hold (15 MB more memory on a site
 * without OPC UA). In its place the appliance's bundle gets the loader of the driver's
 * own bundle; the folder's other modules are reached only through the driver.
 */
const opcuaDriverOutside: Plugin = {
  name: 'opcua-driver-outside',
  setup(b) {
    b.onLoad({ filter: /[\\/]plc[\\/]signals[\\/]opcua[\\/][^\\/]+\.ts$/ }, (args) => {
      const file = path.basename(args.path);
      if (file === 'load-bundled.ts') return undefined;
      const loader = JSON.stringify(path.join(ROOT, 'plc/signals/opcua/load-bundled.ts'));
      return {
        contents:
          file === 'driver.ts'
            ? `import { loadBundledOpcuaDriver } from ${loader};
const driver = loadBundledOpcuaDriver();
export const createDriver = driver.createDriver;
export const createOpcuaDriver = driver.createOpcuaDriver;`
            : '',
        loader: 'js',
        resolveDir: ROOT,
      };
    });
  },
};

/**
 * The NATS client stays out of the appliance's bundle too (500 KB of code a box
 * without a hub link or a pair would parse at every start): in its place the loader of
 * its own bundle.
 */
const natsClientOutside: Plugin = {
  name: 'nats-client-outside',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]nats[\\/]client\.ts$/ }, () => ({
      contents: `import { loadApart } from ${JSON.stringify(path.join(ROOT, 'src/core/apart.ts'))};
const client = loadApart(${JSON.stringify(path.basename(NATS_CLIENT))});
export const nats = client.nats;
export const js = client.js;
export const kv = client.kv;`,
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};

/**
 * The HMI's files go into the bundle as data: src/hmi/embedded.ts is replaced by the
 * table of built, compressed files, so the bundle needs neither esbuild nor a file
 * beside it to serve them (src/hmi/assets.ts).
 */
const embeddedHmi = (assets: AssetTable): Plugin => ({
  name: 'embedded-hmi',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]hmi[\\/]embedded\.ts$/ }, () => ({ contents: embeddedModule(assets), loader: 'js' }));
  },
});

/**
 * The commit the tree is at, short, with `-dirty` when tracked or new files differ
 * from it (the build then holds code no commit has); `unknown` outside a git checkout.
 */
function sourceCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const hash = git('rev-parse', '--short=7', 'HEAD');
    return git('status', '--porcelain') === '' ? hash : `${hash}-dirty`;
  } catch {
    return 'unknown';
  }
}

/** The build's day, UTC; `SOURCE_DATE_EPOCH` (seconds) fixes it for reproducible builds. */
function buildDay(env: NodeJS.ProcessEnv = process.env): string {
  const epoch = Number(env.SOURCE_DATE_EPOCH);
  return new Date(Number.isFinite(epoch) && env.SOURCE_DATE_EPOCH ? epoch * 1000 : Date.now()).toISOString().slice(0, 10);
}

/** What a bundle holds beyond the code: the HMI's files, their count and bytes in each encoding. */
interface BundleSummary {
  hmi: ReturnType<typeof sizes>;
}

export async function bundle(): Promise<BundleSummary> {
  mkdirSync(DIST, { recursive: true });
  const hmi = await buildHmiAssets();
  const logWriter = await threadSource('src/core/log-store/writer.worker.ts');
  const flushThread = await threadSource('src/core/durability/flush.worker.ts');
  const result = await build({
    entryPoints: [path.join(ROOT, 'src/entry.ts')],
    outfile: BUNDLE,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    loader: { '.sql': 'text' },
    // The bundle starts its worker thread from its own file (src/core/log-store), never
    // from a source file: `import.meta.url` has no use in it.
    define: {
      __WMS_BUNDLE__: 'true',
      'import.meta.url': 'undefined',
      // `wms --version` names the commit and day (src/version.ts).
      __WMS_COMMIT__: JSON.stringify(sourceCommit()),
      __WMS_BUILT__: JSON.stringify(buildDay()),
      // The ABI of the Node that builds (and whose native addons are copied): the bundle
      // refuses to run on another (src/entry.ts) instead of crashing in the addon.
      __WMS_NODE_ABI__: JSON.stringify(process.versions.modules),
      __WMS_LOG_WRITER__: JSON.stringify(logWriter),
      __WMS_FLUSH_THREAD__: JSON.stringify(flushThread),
    },
    plugins: [serialBindingLoader, opcuaDriverOutside, natsClientOutside, embeddedHmi(hmi)],
    // pino's transport worker and optional pretty printer are never used.
    external: ['pino-pretty'],
    // The map is a file beside the bundle (`node --enable-source-maps dist/wms.cjs`), not
    // inside it: inline it would be 5 MB of the bundle, twice in the single executable.
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  // Written under temporary names and renamed: a running bundle keeps its file.
  for (const file of result.outputFiles) replaceWith(file.path, file.contents);
  await bundleOpcuaDriver();
  await bundleNatsClient();
  await bundleOpcuaSimulator();
  replaceAtomically(sqlitePrebuild(), ADDON);
  replaceAtomically(serialPrebuild(), SERIAL_ADDON);
  return { hmi: sizes(hmi) };
}

/**
 * A bundle of its own beside the appliance's, for code that only some sites or commands
 * load (node-opcua): CommonJS, whitespace and syntax minified (half the size; names are
 * kept, so its stack traces still read).
 */
async function bundleApart(entry: string, outfile: string, options: Pick<BuildOptions, 'define' | 'loader' | 'plugins'>): Promise<void> {
  const result = await build({
    entryPoints: [path.join(ROOT, entry)],
    outfile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    ...options,
    minifyWhitespace: true,
    minifySyntax: true,
    // An optional file-lock provider node-opcua's certificate store could be given; never used.
    external: ['proper-lockfile'],
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const file of result.outputFiles) replaceWith(file.path, file.contents);
}

/** The OPC UA driver and node-opcua as one CommonJS file (see opcuaDriverOutside). */
const bundleOpcuaDriver = () => bundleApart('plc/signals/opcua/driver.ts', OPCUA_DRIVER, { define: { 'import.meta.url': 'undefined' } });

/** The NATS client (see natsClientOutside). */
const bundleNatsClient = () => bundleApart('src/nats/client.ts', NATS_CLIENT, { define: { 'import.meta.url': 'undefined' } });

/** node-opcua-server reads its version from its package.json at load, a file a bundle does not have. */
const opcuaServerVersion: Plugin = {
  name: 'opcua-server-version',
  setup(b) {
    b.onLoad({ filter: /[\\/]node-opcua-server[\\/]dist[\\/]opcua_server\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const read = 'JSON.parse(fs.readFileSync(path.join(here, "..", "package.json"), "utf8"))\n    .version';
      if (!text.includes(read)) throw new Error('node-opcua-server no longer reads its version as this build expects');
      const { version } = JSON.parse(readFileSync(path.join(path.dirname(args.path), '..', 'package.json'), 'utf8')) as { version: string };
      return { contents: text.replace(read, JSON.stringify(version)), loader: 'js' };
    });
  },
};

/**
 * The conveyor simulator's OPC UA server (plc/simulator/signals/opcua-bundle.ts):
 * node-opcua's server with the standard nodeset inside, 4.6 MB that only
 * `wms simulate --protocol opcua` reads (plc/simulator/signals/server.ts).
 */
const bundleOpcuaSimulator = () =>
  bundleApart('plc/simulator/signals/opcua-bundle.ts', OPCUA_SIMULATOR, {
    // node-opcua-nodesets and node-opcua-server compute paths from import.meta.dirname at load.
    define: { 'import.meta.url': 'undefined', 'import.meta.dirname': '__dirname' },
    // The standard nodeset's image (188 KB gzip), embedded.
    loader: { '.gz': 'binary' },
    plugins: [opcuaServerVersion],
  });

/**
 * A small thread's code, bundled on its own and carried in the appliance's bundle as
 * text, from which the thread starts (`eval`): the log writer (with the SQLite driver)
 * and the flush thread. A thread started from the whole bundle compiled all of the
 * appliance's 2 MB once more: that was the longest step of a start, and held megabytes
 * of code in the thread's heap that it never runs.
 */
async function threadSource(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(ROOT, entry)],
    write: false,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return result.outputFiles[0]!.text;
}

function replaceWith(target: string, contents: Uint8Array): void {
  const partial = `${target}.${process.pid}.tmp`;
  writeFileSync(partial, contents);
  renameSync(partial, target);
}

/**
 * Copies by writing a new file and renaming it over the old one. A running
 * appliance has the old addon mapped into memory; writing into that same file would
 * change its code under it and crash it.
 */
function replaceAtomically(source: string, target: string): void {
  const partial = `${target}.${process.pid}.tmp`;
  copyFileSync(source, partial);
  renameSync(partial, target);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { hmi: h } = await bundle();
  if (!process.argv.includes('--quiet')) {
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    console.log(`built ${path.relative(process.cwd(), BUNDLE)} (HMI: ${h.files} files, ${kb(h.identity)}; gzip ${kb(h.gzip)}, brotli ${kb(h.br)})`);
  }
}
