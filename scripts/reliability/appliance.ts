// The appliance under test as the suites run it: the real bundle (dist/wms.cjs) as a
// child process on a data directory of its own, its JSON log lines read from stdout,
// stopped with SIGTERM or killed with SIGKILL (a crash: no handler runs, nothing is
// flushed).

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { BUNDLE } from '../build.ts';
import { HttpClient } from './http.ts';

export const ADMIN_PASSWORD = 'reliability-admin-1';

export interface LogLine {
  level?: string;
  msg?: string;
  [key: string]: unknown;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildAppliance {
  url: string;
  dataDir: string;
  pid: number;
  /** Log lines at warn and above (JSON), and every line that is not JSON. */
  notable: LogLine[];
  /** Resolves when the process has exited, however. */
  exited: Promise<Exit>;
  running(): boolean;
  /** SIGKILL, and the exit. */
  kill(): Promise<Exit>;
  /** SIGTERM (a clean stop), and the exit. */
  stop(): Promise<Exit>;
  /** Output of the process so far on stderr. */
  stderr(): string;
}

export interface StartOptions {
  /** Written to `<dataDir>/wms.config.json` before the start. */
  config?: Record<string, unknown>;
  bundle?: string;
  timeoutMs?: number;
}

/** The environment of the child: ours without WMS_* settings (they would change what is tested). */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WMS_') && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, WMS_ADMIN_PASSWORD: ADMIN_PASSWORD };
}

const NOTABLE = new Set(['warn', 'error', 'fatal']);

export async function startChild(dataDir: string, options: StartOptions = {}): Promise<ChildAppliance> {
  if (options.config) writeFileSync(path.join(dataDir, 'wms.config.json'), JSON.stringify(options.config));
  const child: ChildProcess = spawn(process.execPath, [options.bundle ?? BUNDLE, '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const notable: LogLine[] = [];
  let stderr = '';
  let pending = '';
  let onStarted: ((url: string) => void) | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const text = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!text) continue;
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        notable.push({ msg: text });
        continue;
      }
      if (NOTABLE.has(String(line.level))) notable.push(line);
      if (line.msg === 'appliance started' && typeof line.url === 'string') onStarted?.(line.url);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
  });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the appliance did not start within ${options.timeoutMs ?? 30_000} ms`)), options.timeoutMs ?? 30_000);
      onStarted = (u) => {
        clearTimeout(timer);
        resolve(u);
      };
      void exited.then((e) => {
        clearTimeout(timer);
        reject(new Error(`the appliance exited (${e.code ?? e.signal}) before it started: ${stderr.slice(-2000)}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const running = () => child.exitCode === null && child.signalCode === null;
  const signal = async (sig: NodeJS.Signals) => {
    if (running()) child.kill(sig);
    return exited;
  };
  return {
    url,
    dataDir,
    pid: child.pid!,
    notable,
    exited,
    running,
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
    stderr: () => stderr,
  };
}

/** A token for a user (password grant). */
export async function login(client: HttpClient, username = 'admin', password = ADMIN_PASSWORD): Promise<string> {
  const reply = await client.send({
    method: 'POST',
    path: '/oauth/token',
    headers: [['Content-Type', 'application/x-www-form-urlencoded']],
    body: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
  });
  if (reply.kind !== 'reply' || reply.status !== 200) {
    throw new Error(`login of ${username} failed: ${reply.kind === 'reply' ? `${reply.status} ${reply.text}` : reply.error}`);
  }
  return (reply.json as { access_token: string }).access_token;
}

/** JSON API calls as one user; throws on anything but 2xx (set-up and checks, not the requests under test). */
export function apiOf(client: HttpClient, token: string) {
  return async (method: string, p: string, body?: unknown): Promise<any> => {
    const reply = await client.send({
      method,
      path: p,
      headers: [['Authorization', `Bearer ${token}`], ...(body === undefined ? [] : [['Content-Type', 'application/json'] as const])],
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (reply.kind !== 'reply') throw new Error(`${method} ${p}: no reply (${reply.error})`);
    if (reply.status >= 300) throw new Error(`${method} ${p}: ${reply.status} ${reply.text}`);
    return reply.json;
  };
}

/** Problems found by SQLite in a database file, opened read-only (none = healthy). */
export function checkDatabaseFile(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    const problems = integrity.length === 1 && integrity[0] === 'ok' ? [] : integrity;
    const foreign = db.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[];
    for (const f of foreign.slice(0, 10)) problems.push(`foreign key: ${f.table} row ${f.rowid} names a missing ${f.parent}`);
    return problems;
  } finally {
    db.close();
  }
}
