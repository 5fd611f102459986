import path from 'node:path';
import { ConfigError } from '../config.ts';

// The options of `wms install-service`. Paths and names end up in a systemd unit, in
// useradd and, with --purge, in a recursive delete: anything unusual is refused here,
// before a single step runs.

export interface InstallOptions {
  uninstall: boolean;
  /** With --uninstall: also remove the data directory and the system user. */
  purge: boolean;
  /** Print the steps (and the unit) without changing anything. */
  dryRun: boolean;
  /** The system user the appliance runs as (member of dialout for serial lines). */
  user: string;
  /** Database, backups, config file; the only place the service may write. */
  dataDir: string;
  /** Listening port written into the unit; when absent the appliance's own setting applies. */
  port?: number | undefined;
  /** Where the executable is installed. */
  bin: string;
  /** Everything is written below this directory; no useradd, chown or systemctl. */
  root?: string | undefined;
  /** Options given on the command line (an uninstall takes the others from the installed unit). */
  given: ReadonlySet<'user' | 'dataDir' | 'bin'>;
}

export const DEFAULTS = { user: 'wms', dataDir: '/var/lib/wms', bin: '/usr/local/bin/wms' } as const;

/** Only plain path characters: the unit has no quoting to get wrong, a shell none to misread. */
const PLAIN_PATH = /^\/[A-Za-z0-9._/-]+$/;
/** What useradd accepts on every distribution (and not root). */
const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
/** The service sees these as empty (ProtectHome, PrivateTmp) or as kernel file systems. */
const HIDDEN = ['/home', '/root', '/run/user', '/tmp', '/var/tmp', '/proc', '/sys', '/dev'];

export function parseInstallOptions(argv: readonly string[]): InstallOptions {
  const given = new Set<'user' | 'dataDir' | 'bin'>();
  const options: InstallOptions = { uninstall: false, purge: false, dryRun: false, ...DEFAULTS, given };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = () => {
      const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '') throw new ConfigError(`install-service: ${name} needs a value`);
      return v;
    };
    if (name === '--uninstall') options.uninstall = true;
    else if (name === '--purge') options.purge = true;
    else if (name === '--dry-run') options.dryRun = true;
    else if (name === '--user') {
      options.user = value();
      given.add('user');
    } else if (name === '--data-dir') {
      options.dataDir = value();
      given.add('dataDir');
    } else if (name === '--bin') {
      options.bin = value();
      given.add('bin');
    } else if (name === '--port') {
      const text = value();
      const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
      if (!(port >= 1 && port <= 65535)) throw new ConfigError(`install-service: --port must be a TCP port 1-65535, not ${text}`);
      options.port = port;
    } else if (name === '--root') {
      options.root = path.resolve(value());
    } else {
      throw new ConfigError(`install-service: unknown option ${arg} (see wms --help)`);
    }
  }
  if (options.purge && !options.uninstall) throw new ConfigError('install-service: --purge goes with --uninstall');
  if (options.uninstall && options.port !== undefined) throw new ConfigError('install-service: --port has no use with --uninstall');
  checkUser(options.user);
  options.dataDir = checkPath('--data-dir', options.dataDir);
  options.bin = checkPath('--bin', options.bin);
  return options;
}

function checkUser(user: string): void {
  if (!USER_NAME.test(user) || user === 'root') {
    throw new ConfigError(`install-service: --user ${user} is not a name for a system user (lower case, digits, _ and -; not root)`);
  }
}

/** An absolute, plain path at least two levels deep, outside what the service cannot see. */
export function checkPath(flag: string, value: string): string {
  const normal = path.posix.normalize(value).replace(/\/$/, '');
  if (!PLAIN_PATH.test(normal)) {
    throw new ConfigError(`install-service: ${flag} must be an absolute path of letters, digits and . _ - / (not ${value})`);
  }
  if (normal.split('/').filter(Boolean).length < 2) {
    throw new ConfigError(`install-service: ${flag} ${normal} is too close to / (e.g. /var/lib/wms, /usr/local/bin/wms)`);
  }
  const hidden = HIDDEN.find((dir) => normal === dir || normal.startsWith(`${dir}/`));
  if (hidden) throw new ConfigError(`install-service: ${flag} ${normal} is under ${hidden}, which the hardened service cannot use`);
  return normal;
}
