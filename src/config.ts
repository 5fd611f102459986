import { DEFAULT_PASSWORD_COST } from './auth/passwords.ts';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { plcConfigSchema } from '../plc/config.ts';
import { federationConfigSchema } from './federation/config.ts';
import { haConfigSchema } from './ha/config.ts';

// One schema holds every setting with its default. Values come, lowest first, from
// the defaults, the optional `<dataDir>/wms.config.json`, `WMS_<SECTION>_<KEY>`
// environment variables (plus a few short names installers type every day) and
// command-line flags. An invalid value stops the start with one line naming the key
// and where the value came from: an installer fixes a typo faster that way than by
// reading a stack trace.

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export const configSchema = z.strictObject({
  server: z
    .strictObject({
      /** Interface to listen on; the box serves the whole LAN by default. */
      host: z.string().min(1).default('0.0.0.0'),
      /** TCP port; 0 picks a free one (tests). */
      port: z.number().int().min(0).max(65535).default(8080),
      /** Base URL for links when the box sits behind a reverse proxy; else taken from `Host`. */
      publicUrl: z.url().optional(),
      /** Largest request body accepted; larger ones get 413. */
      bodyLimitBytes: z
        .number()
        .int()
        .min(1024)
        .max(64 * 1024 * 1024)
        .default(1024 * 1024),
      /** Browser origins allowed by CORS; `*` allows any LAN page (tokens are bearer, not cookies). */
      corsOrigins: z.array(z.string().min(1)).default(['*']),
      /** A request that has not been answered after this long is cut off. */
      requestTimeoutMs: z.number().int().min(1000).default(30_000),
      /** `/metrics` without a token, for a scraper on a closed network; else it needs the grant `metrics:read`. */
      metricsPublic: z.boolean().default(false),
      /**
       * Requests are served by a thread of their own beside the conveyor thread (PLC,
       * writes), so that no request delays a PLC answer (docs/realtime.md); false: one
       * thread does both, as a box with a single core may prefer.
       */
      httpThread: z.boolean().default(true),
      /**
       * The nice value the conveyor thread raises itself to, so that other work on the
       * box does not keep a PLC answer waiting for a core (docs/realtime.md); 0 keeps the
       * process's own. Needs the privilege the service's unit grants (LimitNICE).
       */
      conveyorNice: z.number().int().min(-20).max(0).default(-10),
      /** HTTPS: PEM files of the certificate (chain) and its private key; both or neither. */
      tls: z
        .strictObject({
          cert: z.string().min(1),
          key: z.string().min(1),
        })
        .optional(),
    })
    .prefault({}),
  storage: z
    .strictObject({
      /** Holds the database, its backups, the config file and unpacked native code. */
      dataDir: z.string().min(1).default('./data'),
      /** Database file name inside the data directory. */
      file: z
        .string()
        .regex(/^[\w.-]+$/, 'a plain file name')
        .default('wms.sqlite'),
      /** How long a statement waits for a lock held by a backup before it fails. */
      busyTimeoutMs: z.number().int().min(0).default(5000),
      /** Pre-migration backups kept in `<dataDir>/backups`; older ones are removed. */
      backupsToKeep: z.number().int().min(1).default(5),
      /**
       * Who flushes the write-ahead log to disk: each COMMIT itself (`commit`,
       * synchronous=FULL), or a thread of its own, with every answer sent once the flush
       * that covers it is done (`apart`). Either way nothing acknowledged is lost in a
       * power cut (docs/realtime.md, "Answers after the flush").
       */
      flush: z.enum(['commit', 'apart']).default('commit'),
    })
    .prefault({}),
  auth: z
    .strictObject({
      /** Password of the first `admin`; when unset, one is generated and printed once. */
      adminPassword: z.string().min(8, 'at least 8 characters').optional(),
      /** Lifetime of an access token. */
      tokenTtlSeconds: z
        .number()
        .int()
        .min(60)
        .max(30 * 86_400)
        .default(3600),
      /**
       * scrypt's cost N for the passwords set from now on (a power of two): a login costs
       * about 80 ms of one core at the default. Stored hashes keep the cost they were made
       * with, so a change applies as passwords are set again.
       */
      passwordHashCost: z
        .number()
        .int()
        .min(1024)
        .max(1_048_576)
        .refine((n) => (n & (n - 1)) === 0, 'must be a power of two')
        .default(DEFAULT_PASSWORD_COST),
      /** `iss` claim written into and required from every token. */
      issuer: z.string().min(1).default('wms-appliance'),
      /** Five failed logins in a row from addresses a user never signed in from lock the account against such addresses this long, twice as long at each repeat (at most a day); 0: until an administrator unlocks it. */
      lockoutMinutes: z.number().int().min(0).max(1440).default(15),
      /** Login attempts a client address may make per minute (successful ones give theirs back; a user's logins from an address it signed in from are not counted); more get 429. 0: no limit. */
      loginAttemptsPerMinute: z.number().int().min(0).max(10_000).default(10),
    })
    .prefault({}),
  users: z
    .strictObject({
      /** Largest user image accepted (bytes); larger uploads get 413. */
      imageMaxBytes: z
        .number()
        .int()
        .min(1024)
        .max(16 * 1024 * 1024)
        .default(256 * 1024),
    })
    .prefault({}),
  api: z
    .strictObject({
      /** Message-key family of error bodies: `dotted` (current) or `upper-case` (earlier revision's clients). */
      messageKeys: z.enum(['dotted', 'upper-case']).default('dotted'),
    })
    .prefault({}),
  tasks: z
    .strictObject({
      /** Task types this site's processes support; a task of another type is refused (400). */
      types: z.array(z.string().trim().min(1, 'must not be empty')).min(1, 'at least one type').default(['MANUAL', 'USERTASK']),
    })
    .prefault({}),
  inventory: z
    .strictObject({
      /** A load unit carries one product only: one reserved for or holding another product refuses a new one (409). */
      oneProductPerLoadUnit: z.boolean().default(false),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: logLevel.default('info'),
    })
    .prefault({}),
  events: z
    .strictObject({
      /** Events older than this many days are pruned (history, audit, replay reach back this far). */
      keepDays: z.number().int().min(1).max(3650).default(30),
      /** At most this many events are kept; the oldest go first. */
      maxRows: z.number().int().min(1000).default(10_000_000),
    })
    .prefault({}),
  alarms: z
    .strictObject({
      /** A PLC channel not ONLINE for this long raises an alarm. */
      channelDownSeconds: z.number().int().min(1).max(86_400).default(10),
      /** Free space of the data directory below this raises an alarm (0 = never). */
      minFreeDiskMb: z.number().int().min(0).default(1024),
    })
    .prefault({}),
  /** The PLC channels and our OSIP host name (plc/config.ts). */
  plc: plcConfigSchema,
  /** The link to a hub over NATS JetStream (federation/config.ts); off without `site`. */
  federation: federationConfigSchema,
  /** The hot-standby pair over a NATS cluster (ha/config.ts); off without `pair`. */
  ha: haConfigSchema,
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

/** Keys whose values never appear in `--print-config` or logs. */
const SECRET_KEYS = new Set(['auth.adminPassword']);

/** Short environment names; the full `WMS_<SECTION>_<KEY>` name wins when both are set. */
const SHORT_ENV: Record<string, string> = {
  WMS_PORT: 'server.port',
  WMS_HOST: 'server.host',
  WMS_DATA_DIR: 'storage.dataDir',
  WMS_ADMIN_PASSWORD: 'auth.adminPassword',
};

/** Flags that set a config key; the others are handled by `parseFlags`. */
const KEY_FLAGS: Record<string, string> = {
  '--port': 'server.port',
  '--host': 'server.host',
  '--data-dir': 'storage.dataDir',
};

export const CONFIG_FILE_NAME = 'wms.config.json';

export class ConfigError extends Error {}

interface Flags {
  printConfig: boolean;
  /** Restore the user admin (unlocked, enabled, in ADMIN) with WMS_ADMIN_PASSWORD, then run. */
  resetAdmin: boolean;
  /** A backup file to restore over the database (appliance stopped), then exit. */
  restore?: string | undefined;
  help: boolean;
  version: boolean;
  /** `wms install-service …`: its own arguments (src/install), handled instead of a start. */
  installService?: string[] | undefined;
  /** Config keys set on the command line, by dotted path. */
  values: Record<string, string>;
}

/** Splits the command line into config values and the action flags. */
export function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = { printConfig: false, resetAdmin: false, help: false, version: false, values: {} };
  // A subcommand takes the rest of the line; its options mean what it says they mean.
  if (argv[0] === 'install-service') return { ...flags, installService: argv.slice(1) };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (name === '--print-config') flags.printConfig = true;
    else if (name === '--reset-admin') flags.resetAdmin = true;
    else if (name === '--restore') {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new ConfigError('flag --restore needs the backup file');
      flags.restore = value;
    } else if (name === '--help' || name === '-h') flags.help = true;
    else if (name === '--version' || name === '-v') flags.version = true;
    else if (KEY_FLAGS[name]) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new ConfigError(`flag ${name} needs a value`);
      flags.values[KEY_FLAGS[name]] = value;
    } else {
      throw new ConfigError(`unknown flag ${arg} (see --help)`);
    }
  }
  return flags;
}

export const USAGE = `Usage: wms [--port N] [--host ADDR] [--data-dir DIR] [--print-config] [--reset-admin] [--restore FILE] [--help] [--version]
       wms install-service [--user wms] [--data-dir /var/lib/wms] [--port N] [--bin /usr/local/bin/wms] [--root DIR] [--dry-run]
       wms install-service --uninstall [--purge]
       wms simulate [options] <command> [arguments]

Starts the warehouse appliance. Settings come from defaults, <data-dir>/${CONFIG_FILE_NAME},
WMS_<SECTION>_<KEY> environment variables (short forms: WMS_PORT, WMS_HOST, WMS_DATA_DIR,
WMS_ADMIN_PASSWORD) and these flags, later ones winning.
  --print-config  print the effective settings (secrets redacted) and exit
  --reset-admin   restore the user admin (unlocked, enabled, role ADMIN) with the password
                  of WMS_ADMIN_PASSWORD, then run: the way back in when every administrator
                  is locked out
  --restore FILE  with the appliance stopped: check the backup FILE and put it in place of
                  the database (the current one is kept in <data-dir>/backups), then exit;
                  a file that is no whole database of the appliance is refused (exit 2)
  --version       print the version and the commit it was built from
  install-service as root: install this executable as the systemd service wms (system user
                  in dialout, data directory, hardened unit, started); --uninstall removes it
                  and keeps the data, --purge also removes the data and the user; --dry-run
                  shows the steps; --root DIR writes under DIR only
  simulate        the conveyor PLC simulator, to commission without a PLC: its own options
                  and commands (wms simulate --help); exit 0 ok, 1 exchange failed, 2 bad
                  arguments`;

interface Leaf {
  path: string;
  kind: 'string' | 'number' | 'boolean' | 'json';
}

/** The settable keys of the schema, with the JSON kind each one expects. */
function leaves(): Leaf[] {
  const out: Leaf[] = [];
  for (const [section, sectionSchema] of Object.entries(configSchema.shape)) {
    const inner = unwrap(sectionSchema) as z.ZodObject;
    for (const [key, keySchema] of Object.entries(inner.shape)) {
      const type = (unwrap(keySchema as z.ZodType) as z.ZodType)._zod.def.type;
      const kind = type === 'number' || type === 'boolean' || type === 'string' ? type : 'json';
      out.push({ path: `${section}.${key}`, kind });
    }
  }
  return out;
}

/** The schema inside its default, optional and prefault wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType };
    if ((def.type === 'default' || def.type === 'optional' || def.type === 'prefault') && def.innerType) s = def.innerType;
    else return s;
  }
}

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** `server.bodyLimitBytes` → `WMS_SERVER_BODY_LIMIT_BYTES`. */
export function envName(keyPath: string): string {
  return 'WMS_' + keyPath.split('.').map(snake).join('_');
}

/** Text from env or flags → the JSON value the schema expects; left as text when it does not convert, so zod names the problem. */
function fromText(text: string, kind: Leaf['kind']): unknown {
  if (kind === 'number') return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
  if (kind === 'boolean') return text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : text;
  if (kind === 'json') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function setPath(target: Record<string, unknown>, keyPath: string, value: unknown) {
  const [section, key] = keyPath.split('.') as [string, string];
  const bag = (target[section] ??= {}) as Record<string, unknown>;
  bag[key] = value;
}

interface LoadedConfig {
  config: Config;
  /** Where the config file was looked for, and whether it was there. */
  file: { path: string; found: boolean };
  /** Settings that were ignored, e.g. unknown `WMS_*` variables (logged at start). */
  warnings: string[];
}

/**
 * Builds the effective configuration. `overrides` (used by tests and embedders)
 * sit above every other source.
 */
export function loadConfig(env: NodeJS.ProcessEnv, flags: Pick<Flags, 'values'> = { values: {} }, overrides: ConfigInput = {}): LoadedConfig {
  const known = leaves();
  const byPath = new Map(known.map((l) => [l.path, l]));
  const sources = new Map<string, string>();
  const layered: Record<string, unknown> = {};
  const warnings: string[] = [];

  // The data directory decides where the config file is, so it is settled first.
  const envDataDir = env[envName('storage.dataDir')] ?? env.WMS_DATA_DIR;
  const dataDir = (overrides.storage?.dataDir as string | undefined) ?? flags.values['storage.dataDir'] ?? envDataDir ?? './data';
  const filePath = path.join(dataDir, CONFIG_FILE_NAME);
  const found = existsSync(filePath);
  if (found) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(filePath, 'utf8'));
    } catch (err) {
      throw new ConfigError(`${filePath} is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ConfigError(`${filePath} must hold a JSON object`);
    }
    for (const [section, values] of Object.entries(parsed)) {
      layered[section] = values;
      sources.set(section, filePath);
      if (values && typeof values === 'object' && !Array.isArray(values)) {
        for (const key of Object.keys(values)) sources.set(`${section}.${key}`, filePath);
      }
    }
    const fileDataDir = (parsed as { storage?: { dataDir?: unknown } }).storage?.dataDir;
    if (fileDataDir !== undefined) {
      throw new ConfigError(`storage.dataDir cannot be set in ${filePath}, the file lives in it: use --data-dir or WMS_DATA_DIR`);
    }
  }

  for (const [name, keyPath] of Object.entries(SHORT_ENV)) {
    const value = env[name];
    if (value !== undefined && env[envName(keyPath)] === undefined) {
      setPath(layered, keyPath, fromText(value, byPath.get(keyPath)!.kind));
      sources.set(keyPath, name);
    }
  }
  for (const leaf of known) {
    const name = envName(leaf.path);
    const value = env[name];
    if (value !== undefined) {
      setPath(layered, leaf.path, fromText(value, leaf.kind));
      sources.set(leaf.path, name);
    }
  }
  const envNames = new Set([...Object.keys(SHORT_ENV), ...known.map((l) => envName(l.path))]);
  for (const name of Object.keys(env)) {
    if (name.startsWith('WMS_') && !envNames.has(name)) warnings.push(`unknown setting ${name} ignored`);
  }
  for (const [keyPath, value] of Object.entries(flags.values)) {
    setPath(layered, keyPath, fromText(value, byPath.get(keyPath)!.kind));
    sources.set(keyPath, `--${keyPath === 'storage.dataDir' ? 'data-dir' : keyPath.split('.')[1]}`);
  }
  for (const [section, values] of Object.entries(overrides)) {
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      setPath(layered, `${section}.${key}`, value);
      sources.set(`${section}.${key}`, 'overrides');
    }
  }

  const result = configSchema.safeParse(layered);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    // The source is known per setting (`plc.channels`); the message names the exact
    // place inside it (`plc.channels.0.port`).
    const keyPath = issue.path.slice(0, 2).join('.');
    const fullPath = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      // Name the unknown keys themselves (`server.prot`), and the file they came from.
      const names = issue.keys.map((key) => (fullPath === '' ? key : `${fullPath}.${key}`));
      const where = sources.get(names[0]!) ?? sources.get(keyPath);
      const what = fullPath === '' ? 'section' : 'key';
      throw new ConfigError(`invalid config ${names.join(', ')}${where ? ` (from ${where})` : ''}: unknown ${what}${names.length > 1 ? 's' : ''}`);
    }
    const where = sources.get(keyPath);
    const subject = fullPath === '' ? 'config' : fullPath;
    throw new ConfigError(`invalid config ${subject}${where ? ` (from ${where})` : ''}: ${issue.message}`);
  }
  return { config: result.data, file: { path: filePath, found }, warnings };
}

/** The effective config as printed by `--print-config`: secrets redacted. */
export function redactedConfig(config: Config): Config {
  const copy = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  for (const keyPath of SECRET_KEYS) {
    const [section, key] = keyPath.split('.') as [string, string];
    if (copy[section]?.[key] !== undefined) copy[section][key] = '<redacted>';
  }
  // The NATS token and password of the hub link and of the pair.
  for (const section of ['federation', 'ha']) {
    const nats = copy[section]?.nats as Record<string, unknown> | undefined;
    for (const key of ['token', 'password']) if (nats?.[key] !== undefined) nats[key] = '<redacted>';
  }
  // An OPC UA channel's password (plc.signals[].password).
  for (const channel of (copy.plc?.signals ?? []) as Record<string, unknown>[]) {
    if (channel.password !== undefined) channel.password = '<redacted>';
  }
  return copy as unknown as Config;
}
