import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrations } from '../db/migrations/index.ts';
import { ConfigError, USAGE, loadConfig, parseFlags, redactedConfig, type Config } from './config.ts';
import { BackupRefused, restoreBackup } from './core/backup.ts';
import { openDatabase } from './core/db.ts';
import { StartupError } from './core/migrations.ts';
import { setNativeDir, sqliteBinding } from './core/native.ts';
import { installService } from './install/index.ts';
import type { Appliance } from './main.ts';
import { endKeptWorkers, prestartWorker } from './threads/worker.ts';
import { conveyorYoungGenerationNote } from './core/young-generation.ts';
import { versionLine } from './version.ts';

// The command line: `wms [flags]`, `wms install-service`, `wms --restore`, `wms simulate`.
// Only a start loads the appliance (src/main.ts, its modules and the log writer thread):
// the other commands answer without initialising it.

/**
 * `wms --restore FILE`: the backup replaces the database of the (stopped) appliance.
 * Exit 2 when the file is refused (not a whole database of the appliance at a schema
 * this build knows: nothing changed), 1 when the restore failed (the appliance runs, the
 * disk), 0 when done.
 */
function restore(file: string, config: Config): void {
  const dataDir = path.resolve(config.storage.dataDir);
  const target = path.join(dataDir, config.storage.file);
  // What is written in the data directory is the appliance's user's alone, as at start (core/data-dir.ts).
  process.umask(0o077);
  try {
    const nativeBinding = sqliteBinding(dataDir);
    const { keptAs, schema } = restoreBackup({
      source: path.resolve(file),
      target,
      backupDir: path.join(dataDir, 'backups'),
      migrations,
      openCurrent: () => openDatabase({ file: target, busyTimeoutMs: 100, nativeBinding }),
      nativeBinding,
    });
    process.stdout.write(`restored ${file} (schema ${schema}) as ${target}${keptAs ? `; the previous database is kept as ${keptAs}` : ''}\n`);
  } catch (err) {
    process.stderr.write(`wms: cannot restore: ${err instanceof StartupError ? err.message : (err as Error).stack}\n`);
    process.exit(err instanceof BackupRefused ? 2 : 1);
  }
}

/**
 * `wms simulate [options] <command>`: the conveyor PLC simulator (plc/simulator/cli.ts) with
 * its own options and exit codes (0 ok, 1 exchange failed, 2 bad arguments). Loaded only
 * for this command, so the appliance's start pays nothing for it.
 */
async function simulate(argv: readonly string[]): Promise<number> {
  const { runSimulatorCli } = await import('../plc/simulator/cli.ts');
  // `--serial` loads the serial addon, which the single executable first unpacks into
  // `<data dir>/native` (src/core/native.ts). The simulator has no data directory, and
  // the integrator's may not be writable: a private one of its own, removed afterwards.
  const scratch = process.getBuiltinModule('node:sea')?.isSea() ? mkdtempSync(path.join(tmpdir(), 'wms-simulate-')) : undefined;
  if (scratch) setNativeDir(scratch);
  try {
    return await runSimulatorCli(argv, { program: 'wms simulate' });
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The command line: `wms [flags]`. Exit codes: 0 ok, 1 failed to start, 2 bad config or flags. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  // A subcommand of its own, before the appliance's flags are parsed: its options are the simulator's.
  if (argv[0] === 'simulate') {
    process.exitCode = await simulate(argv.slice(1));
    return;
  }
  let loaded;
  let resetAdmin = false;
  try {
    const flags = parseFlags(argv);
    if (flags.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (flags.version) {
      process.stdout.write(`${versionLine()}\n`);
      return;
    }
    if (flags.installService) return installService(flags.installService);
    loaded = loadConfig(env, flags);
    if (flags.printConfig) {
      process.stdout.write(`${JSON.stringify(redactedConfig(loaded.config), null, 2)}\n`);
      return;
    }
    if (flags.resetAdmin && !loaded.config.auth.adminPassword) {
      throw new ConfigError('--reset-admin needs the new password in WMS_ADMIN_PASSWORD');
    }
    if (flags.restore !== undefined) return restore(flags.restore, loaded.config);
    // The pair's gate takes the place of the flush thread (docs/ha.md): each commit flushes itself.
    if (loaded.config.ha.pair !== undefined && loaded.config.storage.flush === 'apart') {
      throw new ConfigError(
        'ha.pair needs storage.flush: commit (a box of a pair acknowledges a commit once its entry is stored, and flushes each commit itself)',
      );
    }
    resetAdmin = flags.resetAdmin;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`wms: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  // The handlers are in place before the start: a stop requested while starting (or the
  // instant "appliance started" is logged) is carried out once the start is done, rather
  // than killing the process half-way with the signal's default action.
  let appliance: Pick<Appliance, 'close' | 'log'> | undefined;
  let stopRequested: string | undefined;
  const stop = (signal: string) => {
    if (!appliance) {
      stopRequested ??= signal;
      return;
    }
    appliance.log.info({ signal }, 'stopping');
    void appliance.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // The log writer thread and the HTTP thread boot while the appliance's modules load and
  // initialise: the HTTP thread loads and initialises its own, the longest part of a start
  // (the bundle's entry has started it already; a start without one lets it go).
  if (loaded.config.server.httpThread) prestartWorker();
  else endKeptWorkers();
  const { prestartLogWriter } = await import('./core/log-store/index.ts');
  prestartLogWriter();
  try {
    const heapNote = conveyorYoungGenerationNote(process.execArgv, env.NODE_OPTIONS);
    const options = { configNotes: heapNote ? [...loaded.warnings, heapNote] : loaded.warnings, resetAdmin };
    if (loaded.config.ha.pair !== undefined) {
      // One box of a pair: the pair starts the appliance in the role it takes (src/ha/pair.ts).
      const { startPair } = await import('./ha/pair.ts');
      appliance = await startPair(loaded.config, options);
    } else {
      const { startAppliance } = await import('./main.ts');
      appliance = await startAppliance(loaded.config, options);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      err instanceof StartupError || code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES' ? (err as Error).message : (err as Error).stack;
    process.stderr.write(`wms: cannot start: ${reason}\n`);
    process.exit(1);
  }
  if (stopRequested) stop(stopRequested);
}
