import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE } from '../scripts/build.ts';
import { CONVEYOR_NODE_OPTIONS } from '../src/core/young-generation.ts';
import { tempDir } from './support/appliance.ts';
import { until } from './support/warehouse.ts';

// The command line, run as an installer runs it: the real bundle (built by the global
// setup) in a fresh working directory, so the default data directory is ./data there.

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const cwds: string[] = [];
const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of cwds.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workDir(): string {
  const dir = tempDir('wms-cli-');
  cwds.push(dir);
  return dir;
}

/** The environment of the child: ours without any WMS_* setting, plus the given ones. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WMS_') && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, ...extra };
}

function spawnWms(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BUNDLE, ...args], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Runs the executable to its end. */
function run(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Exit> {
  return spawnWms(args, cwd, env).exited;
}

/** The JSON log lines of a stdout text. */
function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

interface Running {
  url: string;
  stdout: () => string;
  /** Sends the signal (SIGTERM when not given) and waits for the exit. */
  stop: (signal?: NodeJS.Signals) => Promise<Exit>;
  exited: Promise<Exit>;
}

/** Starts the appliance on a free port of the loopback and waits for "appliance started". */
async function start(cwd: string, env: Record<string, string> = {}, args: string[] = []): Promise<Running> {
  const proc = spawnWms(['--port', '0', '--host', '127.0.0.1', ...args], cwd, env);
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const started = logLines(proc.stdout()).find((l) => l.msg === 'appliance started');
      if (started) {
        proc.child.stdout!.off('data', look);
        resolve(started.url as string);
      }
    };
    proc.child.stdout!.on('data', look);
    void proc.exited.then((exit) => reject(new Error(`wms exited (${exit.code}) before it started: ${exit.stderr}${exit.stdout}`)));
  });
  return {
    url,
    stdout: proc.stdout,
    exited: proc.exited,
    stop: (signal = 'SIGTERM') => {
      proc.child.kill(signal);
      return proc.exited;
    },
  };
}

async function login(url: string, username: string, password: string) {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The lines a process wrote to stderr. */
const stderrLines = (exit: Exit) => exit.stderr.split('\n').filter((l) => l !== '');

describe('wms --help / --version', () => {
  it('--help prints the usage and exits 0 without touching the disk', async () => {
    const cwd = workDir();
    const exit = await run(['--help'], cwd);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/^Usage: wms /);
    for (const flag of ['--port', '--host', '--data-dir', '--print-config', '--version', 'WMS_ADMIN_PASSWORD']) {
      expect(exit.stdout).toContain(flag);
    }
    expect(exit.stderr).toBe('');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('-h is --help', async () => {
    const exit = await run(['-h'], workDir());
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/^Usage: wms /);
  });

  it('--version prints the release, the commit and the day it was built, and exits 0', async () => {
    const cwd = workDir();
    const exit = await run(['--version'], cwd);
    expect(exit.code).toBe(0);
    const line = /^wms (\S+) \(commit ([0-9a-f]{7,}(?:-dirty)?|unknown), built (\d{4}-\d{2}-\d{2})\)\n$/.exec(exit.stdout);
    expect(line, exit.stdout).not.toBeNull();
    expect(line![1]).toBe(VERSION);
    // The bundle was built from this tree by the global setup: in a git checkout the
    // commit is one of its own, elsewhere it is unknown.
    const commit = line![2]!.replace(/-dirty$/, '');
    if (commit === 'unknown') expect(() => execFileSync('git', ['rev-parse', 'HEAD'], { stdio: 'ignore' })).toThrow();
    else expect(execFileSync('git', ['rev-parse', '--verify', `${commit}^{commit}`], { encoding: 'utf8' })).toMatch(new RegExp(`^${commit}`));
    expect(Number.isNaN(Date.parse(line![3]!))).toBe(false);
    expect(exit.stderr).toBe('');
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('wms --print-config', () => {
  it('prints the effective config as JSON with the admin password redacted', async () => {
    const cwd = workDir();
    const exit = await run(['--print-config', '--port=9123'], cwd, {
      WMS_ADMIN_PASSWORD: 'very-secret-admin-pw',
      WMS_LOG_LEVEL: 'warn',
      WMS_SERVER_CORS_ORIGINS: '["http://hmi.local"]',
    });
    expect(exit.code).toBe(0);
    expect(exit.stderr).toBe('');
    expect(exit.stdout).not.toContain('very-secret-admin-pw');
    const printed = JSON.parse(exit.stdout) as Record<string, Record<string, unknown>>;
    // Every section is printed; these are the ones the flags and variables above touch.
    expect(printed).toMatchObject({
      server: {
        host: '0.0.0.0',
        port: 9123,
        bodyLimitBytes: 1024 * 1024,
        corsOrigins: ['http://hmi.local'],
        requestTimeoutMs: 30_000,
      },
      storage: { dataDir: './data', file: 'wms.sqlite', busyTimeoutMs: 5000, backupsToKeep: 5 },
      auth: { adminPassword: '<redacted>', tokenTtlSeconds: 3600, issuer: 'wms-appliance' },
      api: { messageKeys: 'dotted' },
      log: { level: 'warn' },
    });
    // Printing creates no data directory and no database.
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('includes the values of <data-dir>/wms.config.json', async () => {
    const cwd = workDir();
    const dataDir = path.join(cwd, 'site');
    mkdirSync(dataDir);
    writeFileSync(path.join(dataDir, 'wms.config.json'), JSON.stringify({ auth: { issuer: 'box-7' } }));
    const exit = await run(['--print-config', '--data-dir', dataDir], cwd);
    expect(exit.code).toBe(0);
    const printed = JSON.parse(exit.stdout) as { auth: { issuer: string }; storage: { dataDir: string } };
    expect(printed.auth.issuer).toBe('box-7');
    expect(printed.storage.dataDir).toBe(dataDir);
    expect(readdirSync(dataDir)).toEqual(['wms.config.json']);
  });
});

describe('wms with an invalid configuration', () => {
  const cases: { name: string; args: string[]; env: Record<string, string>; line: RegExp }[] = [
    { name: 'WMS_PORT=abc', args: [], env: { WMS_PORT: 'abc' }, line: /^wms: invalid config server\.port \(from WMS_PORT\): / },
    { name: '--port 70000', args: ['--port', '70000'], env: {}, line: /^wms: invalid config server\.port \(from --port\): / },
    { name: '--port=70000', args: ['--port=70000'], env: {}, line: /^wms: invalid config server\.port \(from --port\): / },
    {
      name: 'WMS_LOG_LEVEL=loud',
      args: [],
      env: { WMS_LOG_LEVEL: 'loud' },
      line: /^wms: invalid config log\.level \(from WMS_LOG_LEVEL\): /,
    },
    {
      name: 'a too short WMS_ADMIN_PASSWORD',
      args: [],
      env: { WMS_ADMIN_PASSWORD: 'short' },
      line: /^wms: invalid config auth\.adminPassword \(from WMS_ADMIN_PASSWORD\): /,
    },
    { name: 'an unknown flag', args: ['--prot', '80'], env: {}, line: /^wms: unknown flag --prot / },
    { name: '--port without a value', args: ['--port'], env: {}, line: /^wms: flag --port needs a value/ },
  ];

  for (const c of cases) {
    it(`${c.name}: exits 2 with one line on stderr naming the problem, and creates nothing`, async () => {
      const cwd = workDir();
      const exit = await run(c.args, cwd, c.env);
      expect(exit.code).toBe(2);
      const lines = stderrLines(exit);
      expect(lines, exit.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(c.line);
      expect(exit.stdout).toBe('');
      expect(readdirSync(cwd)).toEqual([]);
    });
  }

  it('an unknown key in wms.config.json: exits 2 naming the key and the file', async () => {
    const cwd = workDir();
    mkdirSync(path.join(cwd, 'data'));
    writeFileSync(path.join(cwd, 'data', 'wms.config.json'), JSON.stringify({ server: { prot: 80 } }));
    const exit = await run([], cwd);
    expect(exit.code).toBe(2);
    const lines = stderrLines(exit);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`server.prot (from ${path.join('./data', 'wms.config.json')})`);
    expect(readdirSync(path.join(cwd, 'data'))).toEqual(['wms.config.json']);
  });

  it('ha.pair with storage.flush apart: exits 2 saying that a box of a pair flushes each commit itself, and starts nothing', async () => {
    const cwd = workDir();
    const exit = await run([], cwd, { WMS_HA_PAIR: 'hall1', WMS_HA_NODE: 'box-a', WMS_STORAGE_FLUSH: 'apart' });
    expect(exit.code).toBe(2);
    const lines = stderrLines(exit);
    expect(lines, exit.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^wms: ha\.pair needs storage\.flush: commit/);
    expect(exit.stdout).toBe('');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('--print-config with an invalid value also exits 2', async () => {
    const exit = await run(['--print-config'], workDir(), { WMS_PORT: 'abc' });
    expect(exit.code).toBe(2);
    expect(stderrLines(exit)).toHaveLength(1);
    expect(exit.stdout).toBe('');
  });
});

describe('wms: start and stop', () => {
  it('starts on --port 0, logs where it listens, answers HTTP and exits 0 on SIGTERM', async () => {
    const cwd = workDir();
    const wms = await start(cwd, { WMS_ADMIN_PASSWORD: 'admin-cli-password' });
    expect(wms.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(wms.url).port)).toBeGreaterThan(0);
    const token = await login(wms.url, 'admin', 'admin-cli-password');
    expect(token.status).toBe(200);
    expect(typeof token.body.access_token).toBe('string');
    expect(existsSync(path.join(cwd, 'data', 'wms.sqlite'))).toBe(true);
    const exit = await wms.stop();
    expect(exit.code).toBe(0);
    expect(exit.signal).toBeNull();
    expect(logLines(exit.stdout).some((l) => l.msg === 'stopping' && l.signal === 'SIGTERM')).toBe(true);
  });

  it('exits 0 on SIGINT too', async () => {
    const wms = await start(workDir(), { WMS_ADMIN_PASSWORD: 'admin-cli-password' });
    const exit = await wms.stop('SIGINT');
    expect(exit.code).toBe(0);
    expect(exit.signal).toBeNull();
    expect(logLines(exit.stdout).some((l) => l.msg === 'stopping' && l.signal === 'SIGINT')).toBe(true);
  });

  it('a SIGTERM the moment "appliance started" is logged still closes cleanly with exit 0', async () => {
    const cwd = workDir();
    const env = { WMS_ADMIN_PASSWORD: 'admin-cli-password' };
    for (let i = 0; i < 5; i++) {
      const exit = await (await start(cwd, env)).stop();
      expect(exit.signal, `round ${i}`).toBeNull();
      expect(exit.code, `round ${i}`).toBe(0);
      expect(
        logLines(exit.stdout).some((l) => l.msg === 'stopping'),
        `round ${i}`,
      ).toBe(true);
    }
    // Five starts and stops of the bundle: minutes beside a second suite.
  }, 300_000);

  it('logs a warning for an unknown WMS_* variable and starts anyway', async () => {
    const wms = await start(workDir(), { WMS_ADMIN_PASSWORD: 'admin-cli-password', WMS_PROT: '80' });
    const exit = await wms.stop();
    expect(exit.code).toBe(0);
    const warning = logLines(exit.stdout).find((l) => l.msg === 'unknown setting WMS_PROT ignored');
    expect(warning?.level).toBe('warn');
  });

  it("says so when started without the conveyor thread's young generation named, and not when NODE_OPTIONS names it", async () => {
    const bare = await start(workDir(), { WMS_ADMIN_PASSWORD: 'admin-cli-password' });
    const bareExit = await bare.stop();
    expect(bareExit.code).toBe(0);
    const warning = logLines(bareExit.stdout).find((l) => String(l.msg).includes("the conveyor thread's young generation is V8's default"));
    expect(warning?.level).toBe('warn');
    expect(String(warning?.msg)).toContain(`node ${CONVEYOR_NODE_OPTIONS.join(' ')} dist/wms.cjs`);

    const named = await start(workDir(), { WMS_ADMIN_PASSWORD: 'admin-cli-password', NODE_OPTIONS: CONVEYOR_NODE_OPTIONS.join(' ') });
    const namedExit = await named.stop();
    expect(namedExit.code).toBe(0);
    expect(logLines(namedExit.stdout).some((l) => String(l.msg).includes('young generation'))).toBe(false);
  });

  it('exits 1 with one clear line when the port is taken', async () => {
    const first = await start(workDir(), { WMS_ADMIN_PASSWORD: 'admin-cli-password' });
    const port = new URL(first.url).port;
    const exit = await run(['--port', port, '--host', '127.0.0.1'], workDir(), { WMS_ADMIN_PASSWORD: 'admin-cli-password' });
    expect(exit.code).toBe(1);
    const lines = stderrLines(exit);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^wms: cannot start: another program already listens on 127\.0\.0\.1:\d+; choose another port with --port N/);
    expect((await first.stop()).code).toBe(0);
  });
});

describe('wms on another Node', () => {
  // The machine's own Node, when it differs from the pinned one the bundle was built with.
  const other = ['/usr/bin/node', '/usr/local/bin/node'].find((bin) => {
    try {
      return execFileSync(bin, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim() !== process.versions.modules;
    } catch {
      return false;
    }
  });

  it.skipIf(other === undefined)('refuses with exit 1 and says which Node to use, instead of crashing in the SQLite addon', () => {
    const cwd = workDir();
    let exit: { status: number | null; stderr: string };
    try {
      execFileSync(other!, [BUNDLE, '--port', '0'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      exit = { status: 0, stderr: '' };
    } catch (err) {
      exit = err as { status: number | null; stderr: string };
    }
    expect(exit.status).toBe(1);
    expect(exit.stderr).toMatch(/this build needs the Node\.js it was built with .*npm start/s);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('wms: first start without WMS_ADMIN_PASSWORD', () => {
  it('writes a generated admin password to <data dir>/initial-admin-password (0600), never to the log; the file goes when the password is changed', async () => {
    const cwd = workDir();
    const first = await start(cwd);
    const file = path.join(cwd, 'data', 'initial-admin-password');
    const line = logLines(first.stdout()).find((l) => l.file === file);
    expect(line).toMatchObject({ level: 'warn', username: 'admin' });
    expect(line!.msg).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(12);
    expect(first.stdout()).not.toContain(password);

    const token = await login(first.url, 'admin', password);
    expect(token.status).toBe(200);
    const firstExit = await first.stop();
    expect(firstExit.code).toBe(0);
    expect(firstExit.stdout).not.toContain(password);

    // A second start neither writes nor logs it again; the password still holds.
    const second = await start(cwd);
    expect(logLines(second.stdout()).some((l) => 'file' in l && l.username === 'admin')).toBe(false);
    const again = await login(second.url, 'admin', password);
    expect(again.status).toBe(200);
    // Changed by its owner: the generated one is worthless, and its file is removed.
    const admin = (
      (await (await fetch(`${second.url}/users`, { headers: { Authorization: `Bearer ${again.body.access_token as string}` } })).json()) as {
        username: string;
        pKey: string;
      }[]
    ).find((u) => u.username === 'admin')!;
    const changed = await fetch(`${second.url}/users/${admin.pKey}/password`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${again.body.access_token as string}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ password: 'a-password-of-my-own' }),
    });
    expect(changed.status).toBe(200);
    await until(() => !existsSync(file), 'the file to go');
    expect((await second.stop()).code).toBe(0);
  });
});

describe('wms with a database of a newer build', () => {
  it('refuses to start with exit code 1 and a clear message, and leaves the database alone', async () => {
    const cwd = workDir();
    const first = await start(cwd, { WMS_ADMIN_PASSWORD: 'admin-cli-password' });
    expect((await first.stop()).code).toBe(0);

    const file = path.join(cwd, 'data', 'wms.sqlite');
    const db = new Database(file);
    db.pragma('user_version = 9999');
    const users = (db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
    db.close();

    const exit = await run(['--port', '0', '--host', '127.0.0.1'], cwd, { WMS_ADMIN_PASSWORD: 'admin-cli-password' });
    expect(exit.code).toBe(1);
    const lines = stderrLines(exit);
    expect(lines, exit.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^wms: cannot start: the database was written by a newer build \(schema 9999; /);
    expect(logLines(exit.stdout).some((l) => l.msg === 'appliance started')).toBe(false);

    const after = new Database(file, { readonly: true });
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(9999);
      expect((after.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n).toBe(users);
    } finally {
      after.close();
    }
    const backups = path.join(cwd, 'data', 'backups');
    expect(existsSync(backups) ? readdirSync(backups) : []).toEqual([]);
  });
});

describe('wms --reset-admin: the way back in when every administrator is locked out', () => {
  it('refuses to run without the new password in WMS_ADMIN_PASSWORD (exit 2, one line)', async () => {
    const cwd = workDir();
    const exit = await run(['--reset-admin'], cwd);
    expect(exit.code).toBe(2);
    expect(stderrLines(exit)).toHaveLength(1);
    expect(exit.stderr).toMatch(/--reset-admin needs the new password in WMS_ADMIN_PASSWORD/);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('unlocks the locked-out admin and gives it the new password', async () => {
    const cwd = workDir();
    const first = await start(cwd, { WMS_ADMIN_PASSWORD: 'first-password' });
    let wrong = await login(first.url, 'admin', 'wrong-password');
    for (let i = 1; i < 5; i++) wrong = await login(first.url, 'admin', 'wrong-password');
    expect(wrong.status).toBe(401);
    // Locked now: the right password is refused too, in the words of any refused login.
    const locked = await login(first.url, 'admin', 'first-password');
    expect(locked.status).toBe(401);
    expect(locked.body.message).toBe(wrong.body.message);
    expect((await first.stop()).code).toBe(0);

    const second = await start(cwd, { WMS_ADMIN_PASSWORD: 'second-password' }, ['--reset-admin']);
    expect(logLines(second.stdout()).some((l) => l.msg === 'user admin restored from the command line: unlocked, enabled, role ADMIN, new password')).toBe(
      true,
    );
    expect((await login(second.url, 'admin', 'first-password')).status).toBe(401);
    const token = await login(second.url, 'admin', 'second-password');
    expect(token.status).toBe(200);
    const users = await fetch(`${second.url}/users`, { headers: { Authorization: `Bearer ${String(token.body.access_token)}` } });
    const admin = ((await users.json()) as { username: string; locked: boolean; roleNames: string[] }[]).find((u) => u.username === 'admin');
    expect(admin).toMatchObject({ locked: false, roleNames: ['ADMIN'] });
    expect((await second.stop()).code).toBe(0);
  });
});
