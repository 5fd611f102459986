import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BUNDLE, ROOT } from '../scripts/build.ts';
import { configSchema, unwrap } from '../src/config.ts';
import { CONVEYOR_NODE_OPTIONS } from '../src/core/young-generation.ts';
import { tempDir } from './support/appliance.ts';

// The README's quick start, copied as it stands: the appliance started in a fresh
// folder (data in ./data, as `npm start` does), then the README's shell block run by
// bash with curl, only the address changed to the test's port. With a password from
// WMS_ADMIN_PASSWORD that a form must encode (& + = and a space), and with the
// generated one from data/initial-admin-password. And its table of settings: every key
// of the config schema, each with the range the schema accepts.

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const quickStart = README.slice(README.indexOf('## Quick start'));
/** The second sh block of the quick start: the first requests. */
const FIRST_REQUESTS = [...quickStart.matchAll(/```sh\n([\s\S]*?)```/g)][1]![1]!;

/** The Node options `npm start` gives the bundle (package.json's start script: the build, then `node <options> dist/wms.cjs`). */
const START_NODE_OPTIONS = (() => {
  const start = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const run = /&& node ((?:--\S+ )*)dist\/wms\.cjs$/.exec(start);
  if (!run) throw new Error(`package.json's start script does not end in \`node [options] dist/wms.cjs\`: ${start}`);
  return run[1]!.split(' ').filter((arg) => arg !== '');
})();

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The bundle started as `npm start` starts it; resolves to its host:port and the log up to "appliance started". */
async function startIn(cwd: string, env: Record<string, string>): Promise<{ hostPort: string; log: string }> {
  const child = spawn(process.execPath, [...START_NODE_OPTIONS, BUNDLE, '--port', '0', '--host', '127.0.0.1'], {
    cwd,
    env: { PATH: process.env.PATH, ...env },
  });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"http:\/\/([^"]+)"[^\n]*appliance started/.exec(out);
      if (match) resolve({ hostPort: match[1]!, log: out });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

function runQuickStart(cwd: string, hostPort: string, env: Record<string, string>): string {
  const script = FIRST_REQUESTS.replaceAll('localhost:8080', hostPort);
  return execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
}

describe('README quick start', () => {
  it('names its requests as a shell block', () => {
    expect(FIRST_REQUESTS).toContain('/oauth/token');
    expect(FIRST_REQUESTS).toContain('/v1/locations/index');
  });

  it('works with WMS_ADMIN_PASSWORD, even one that a form must encode', async () => {
    const cwd = tempDir('wms-readme-');
    dirs.push(cwd);
    const env = { WMS_ADMIN_PASSWORD: 'p&ss+word = 100%' };
    const { hostPort, log } = await startIn(cwd, env);
    const out = runQuickStart(cwd, hostPort, env);
    expect(out).toContain('"location-findbycoordinate"');
    // npm start names the conveyor thread's young generation, as the single executable does.
    expect(START_NODE_OPTIONS).toEqual(CONVEYOR_NODE_OPTIONS);
    expect(log).not.toContain("young generation is V8's default");
  });

  it('works with the generated password in data/initial-admin-password', async () => {
    const cwd = tempDir('wms-readme-');
    dirs.push(cwd);
    const { hostPort } = await startIn(cwd, {});
    const out = runQuickStart(cwd, hostPort, {});
    expect(out).toContain('"location-findbycoordinate"');
  });
});

// ---- the table of settings against the schema ------------------------------------

/** The README's settings: key → the cell `range`. */
function readmeRanges(): Map<string, string> {
  const section = README.slice(README.indexOf('## Configuration'));
  const rows = section.slice(section.indexOf('| key | default | range | meaning |')).split('\n');
  const ranges = new Map<string, string>();
  for (const row of rows.slice(2)) {
    if (!row.startsWith('|')) break;
    const [key, , range] = row
      .slice(1)
      .split(' | ')
      .map((cell) => cell.trim());
    ranges.set(key!.replaceAll('`', ''), range!.replaceAll('`', ''));
  }
  return ranges;
}

const between = (min: number | null, max: number | null, unit = ''): string | undefined => {
  const low = min !== null && min > Number.MIN_SAFE_INTEGER ? min : undefined;
  const high = max !== null && max < Number.MAX_SAFE_INTEGER ? max : undefined;
  if (low !== undefined && high !== undefined) return `${low} – ${high}${unit}`;
  if (low !== undefined) return `≥ ${low}${unit}`;
  if (high !== undefined) return `≤ ${high}${unit}`;
  return undefined;
};

/** The range the schema accepts, written as the README writes it; undefined for none. */
function rangeOf(schema: z.ZodType): string | undefined {
  const s = unwrap(schema);
  if (s._zod.def.type === 'number') {
    const n = s as z.ZodNumber;
    return between(n.minValue, n.maxValue);
  }
  if (s._zod.def.type === 'string') {
    const t = s as z.ZodString;
    // A text that must not be empty is no range worth a word.
    return between(t.minLength !== null && t.minLength > 1 ? t.minLength : null, t.maxLength, ' characters');
  }
  if (s._zod.def.type === 'object') {
    const members = Object.entries((s as z.ZodObject).shape)
      .map(([name, member]) => [name, rangeOf(member as z.ZodType)] as const)
      .filter(([, range]) => range !== undefined);
    return members.length ? members.map(([name, range]) => `${name} ${range}`).join('; ') : undefined;
  }
  return undefined;
}

/** Every settable key (`section.key`) of the schema with its range. */
function schemaRanges(): Map<string, string> {
  const ranges = new Map<string, string>();
  for (const [section, sectionSchema] of Object.entries(configSchema.shape)) {
    for (const [key, keySchema] of Object.entries((unwrap(sectionSchema) as z.ZodObject).shape)) {
      ranges.set(`${section}.${key}`, rangeOf(keySchema as z.ZodType) ?? '–');
    }
  }
  return ranges;
}

describe('README table of settings', () => {
  it('lists every key of the config schema, and no other', () => {
    expect([...readmeRanges().keys()].sort()).toEqual([...schemaRanges().keys()].sort());
  });

  it('gives each setting the range the schema accepts', () => {
    const readme = readmeRanges();
    const schema = schemaRanges();
    expect(schema.get('auth.tokenTtlSeconds')).toBe('60 – 2592000');
    expect(Object.fromEntries([...readme].filter(([key]) => schema.has(key)))).toEqual(Object.fromEntries(schema));
  });
});

// `npm install`, the quick start's first step, runs on the machine's own Node and npm,
// not the pinned Node: inside `npm test` PATH starts with node_modules/.bin and npm
// exports its settings as npm_* variables, so both are taken away to run npm as a
// newcomer's shell does. `--dry-run --offline` in a copy of package.json,
// package-lock.json and .npmrc: npm builds the same tree from the lock file and checks
// every package's engines (where the EBADENGINE warnings come from) exactly as a real
// install does, from the local cache, and writes nothing.

/** The environment of a shell outside npm: no npm_* settings, no node_modules/.bin on PATH. */
function newcomerShell(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(path.delimiter);
  return env;
}

function npmIn(dir: string, args: string[]) {
  return spawnSync('npm', [...args, '--offline', '--no-audit', '--no-fund'], { cwd: dir, env: newcomerShell(), encoding: 'utf8' });
}

describe("README quick start: npm install on the machine's own Node", () => {
  it('runs on a Node that is not the pinned one (the case the warnings came from)', () => {
    const machineNode = spawnSync('node', ['--version'], { env: newcomerShell(), encoding: 'utf8' }).stdout.trim();
    expect(machineNode).toMatch(/^v\d+\./);
    expect(machineNode).not.toBe(process.version);
  });

  it('prints no EBADENGINE warning', () => {
    const dir = tempDir('wms-npm-install-');
    dirs.push(dir);
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(path.join(ROOT, file), path.join(dir, file));
    const install = npmIn(dir, ['install', '--dry-run']);
    expect(install.status, install.stderr).toBe(0);
    expect(`${install.stdout}${install.stderr}`).not.toMatch(/EBADENGINE|npm warn/);
  }, 120_000);

  it('still shows a real error', () => {
    const dir = tempDir('wms-npm-install-');
    dirs.push(dir);
    copyFileSync(path.join(ROOT, '.npmrc'), path.join(dir, '.npmrc'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'npmrc-check', version: '1.0.0', dependencies: { 'wms-no-such-package': '1.0.0' } }));
    const install = npmIn(dir, ['install', '--dry-run']);
    expect(install.status).not.toBe(0);
    expect(install.stderr).toMatch(/^npm error code ENOTCACHED/m);
  }, 120_000);
});
