import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { loadConfig, type Config, type ConfigInput } from '../../src/config.ts';
import { startAppliance, type Appliance } from '../../src/main.ts';
import type { EventRecord, EventType } from '../../src/contract/events.ts';

// Starts the real appliance on port 0 over a fresh SQLite file in a temporary data
// directory, and speaks HTTP to it like any client would.

export const ADMIN_PASSWORD = 'admin-test-password';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, or undefined when the body is empty or not JSON. */
  body: any;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body bytes/text sent as they are (with the given headers). */
  raw?: string | Buffer;
  /** Send no Authorization header. */
  anonymous?: boolean;
  token?: string;
}

export interface TestAppliance {
  app: Appliance;
  url: string;
  dataDir: string;
  /** Log lines written so far. */
  logs: () => string[];
  /** A token of the admin user. */
  token: () => Promise<string>;
  request: (method: string, path: string, options?: RequestOptions) => Promise<Reply>;
  get: (path: string, options?: RequestOptions) => Promise<Reply>;
  post: (path: string, body?: unknown, options?: RequestOptions) => Promise<Reply>;
  put: (path: string, body?: unknown, options?: RequestOptions) => Promise<Reply>;
  patch: (path: string, body?: unknown, options?: RequestOptions) => Promise<Reply>;
  del: (path: string, options?: RequestOptions) => Promise<Reply>;
  close: () => Promise<void>;
}

/** A reply as the tests read it: status, headers, text and the JSON body if it is JSON. */
export async function replyOf(res: Response): Promise<Reply> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export function tempDir(prefix = 'wms-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Names made so far, per appliance: the appliances of each file count on their own. */
const made = new WeakMap<TestAppliance, number>();

/** `<prefix>-0001`, `<prefix>-0002`, …: a name not used before on this appliance. */
export function unique(wms: TestAppliance, prefix: string): string {
  const n = (made.get(wms) ?? 0) + 1;
  made.set(wms, n);
  return `${prefix}-${String(n).padStart(4, '0')}`;
}

/** The config a test's appliance runs with: on a free port of the loopback, in `dataDir`, logins cheap. */
export function testConfig(overrides: ConfigInput, dataDir: string): Config {
  const { config } = loadConfig(
    {},
    { values: {} },
    {
      ...overrides,
      // The test's process is the appliance's: its main thread keeps the priority every
      // other test process has (test/threads.test.ts raises it on purpose).
      server: { port: 0, host: '127.0.0.1', conveyorNice: 0, ...overrides.server },
      storage: { dataDir, ...overrides.storage },
      // Tests log in (and fail on purpose) far more often than people: the login throttle
      // is tested on its own with the default (test/login-defence.test.ts).
      // scrypt at N = 1024: a login costs 5 ms of CPU instead of 80, and the suite logs in
      // some thousand times (README, "Testing"). The processes the CLI and executable tests
      // start keep the default cost, and test/users-logins.test.ts checks both.
      auth: { adminPassword: ADMIN_PASSWORD, loginAttemptsPerMinute: 600, passwordHashCost: 1024, ...overrides.auth },
      log: { level: 'debug', ...overrides.log },
    },
  );
  return config;
}

export async function startTestAppliance(overrides: ConfigInput = {}, dataDir = tempDir()): Promise<TestAppliance> {
  const config = testConfig(overrides, dataDir);
  const lines: string[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const app = await startAppliance(config, { logDestination: sink });
  let adminToken: string | undefined;

  const request = async (method: string, p: string, options: RequestOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...options.headers };
    if (!options.anonymous && !headers.Authorization && !headers.authorization) {
      headers.Authorization = `Bearer ${options.token ?? (await token())}`;
    }
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    return replyOf(await fetch(app.url + p, { method, headers, body }));
  };

  async function token(): Promise<string> {
    if (adminToken) return adminToken;
    adminToken = await login('admin', ADMIN_PASSWORD);
    return adminToken;
  }

  async function login(username: string, password: string): Promise<string> {
    const res = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
    });
    if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  return {
    app,
    url: app.url,
    dataDir,
    logs: () => [...lines],
    token,
    request,
    get: (p, o) => request('GET', p, o),
    post: (p, body, o) => request('POST', p, { ...o, body }),
    put: (p, body, o) => request('PUT', p, { ...o, body }),
    patch: (p, body, o) => request('PATCH', p, { ...o, body }),
    del: (p, o) => request('DELETE', p, o),
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Asserts nothing about the body's message, but that it is the spec's API-declined shape. */
export function expectApiError(reply: Reply, status: number, messageKey: string): void {
  const problems: string[] = [];
  if (reply.status !== status) problems.push(`status ${reply.status} instead of ${status}`);
  if (!reply.headers.get('content-type')?.startsWith('application/hal+json')) {
    problems.push(`content type ${reply.headers.get('content-type')}`);
  }
  const body = reply.body as Record<string, unknown> | undefined;
  if (!body || body.messageKey !== messageKey) problems.push(`messageKey ${String(body?.messageKey)} instead of ${messageKey}`);
  if (body && (typeof body.message !== 'string' || body.httpStatus !== String(status))) {
    problems.push('message or httpStatus missing');
  }
  if (problems.length) throw new Error(`${problems.join('; ')}: ${reply.text}`);
}

/** Asserts the spec's server-declined shape. */
export function expectServerError(reply: Reply, status: number): void {
  const body = reply.body as Record<string, unknown> | undefined;
  const ok =
    reply.status === status &&
    body !== undefined &&
    body.status === status &&
    typeof body.timestamp === 'number' &&
    typeof body.error === 'string' &&
    typeof body.message === 'string' &&
    typeof body.path === 'string' &&
    typeof body.requestId === 'string';
  if (!ok) throw new Error(`expected server-declined ${status}, got ${reply.status}: ${reply.text}`);
}

/**
 * Stops the appliance, applies to its database file what an operator or another system
 * did to it meanwhile (`sql`), and starts it again on the same data directory. The one
 * way tests write SQL into the appliance's tables: for states no API call can make (a
 * row removed by hand, a database without a default account), and never while it runs.
 */
export async function restartAfterSql(box: TestAppliance, sql: string, overrides: ConfigInput = {}): Promise<TestAppliance> {
  await box.app.close();
  const db = new Database(path.join(box.dataDir, box.app.config.storage.file));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
  return startTestAppliance(overrides, box.dataDir);
}

/** An appliance started on a database as another system left it: the appliance's schema, then that system's writes (`sql`). */
export async function startOnBroughtOverDatabase(sql: string, overrides: ConfigInput = {}): Promise<TestAppliance> {
  return restartAfterSql(await startTestAppliance(overrides), sql, overrides);
}

/** A committed event as the appliance records and sends it (src/contract/events.ts). */
export type RecordedEvent<T extends EventType = EventType> = EventRecord<T>;

/** The events of one type, typed by it. */
export function ofType<T extends EventType>(events: readonly RecordedEvent[], type: T): RecordedEvent<T>[] {
  return events.filter((e): e is RecordedEvent<T> => e.type === type);
}

/** The last event, which must be of the type (otherwise the test fails naming the one it was). */
export function lastOfType<T extends EventType>(events: readonly RecordedEvent[], type: T): RecordedEvent<T> {
  const last = events.at(-1);
  if (last?.type !== type) throw new Error(`expected the last event to be ${type}, it was ${last?.type ?? 'none'}`);
  return last as RecordedEvent<T>;
}

/**
 * `POST /oauth/token` as a login form sends it (URL-encoded fields, no token). `from`: the
 * client's own address, a real source address the connection is bound to (Linux routes
 * all of 127.0.0.0/8 to the loopback, so 127.0.0.2, 127.0.0.3, … are clients of their
 * own); without it the system picks one (127.0.0.1). Plain HTTP only.
 */
export function loginReply(on: TestAppliance, username: string, password: string, from?: string): Promise<Reply> {
  const raw = new URLSearchParams({ grant_type: 'password', username, password }).toString();
  const headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (from === undefined) return on.request('POST', '/oauth/token', { anonymous: true, raw, headers });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${on.url}/oauth/token`,
      { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(raw)) }, localAddress: from, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const replyHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const one of [value ?? []].flat()) replyHeaders.append(name, one);
          }
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode!, headers: replyHeaders, text, body });
        });
      },
    );
    request.on('error', reject);
    request.end(raw);
  });
}
