import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  lchownSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

// The machine as install-service sees it: users, groups, systemd, files. Every call
// that changes something is made by a step (steps.ts), which prints it.

/** A step could not be carried out; the message says why and what to do. */
export class InstallError extends Error {}

/** Runs a system command; its error output becomes the message when it fails. */
export function command(cmd: string, args: readonly string[]): void {
  try {
    execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new InstallError(`${cmd} ${args.join(' ')} failed: ${e.stderr?.toString().trim() || e.message}`);
  }
}

/** Whether a command exits 0 (a question, not a change). */
export function succeeds(cmd: string, args: readonly string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/** systemd's own test (sd_booted): this directory exists only when systemd is PID 1. */
export function systemdRunning(): boolean {
  return existsSync('/run/systemd/system');
}

/** The name of PID 1, for the message when it is not systemd. */
export function initName(): string {
  try {
    return readFileSync('/proc/1/comm', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/** uid and gid of a user; undefined when there is no such user. */
export function userIds(user: string): { uid: number; gid: number } | undefined {
  const found = spawnSync('getent', ['passwd', user], { encoding: 'utf8' });
  if (found.status !== 0) return undefined;
  const [, , uid, gid] = found.stdout.trim().split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export function groupExists(group: string): boolean {
  return succeeds('getent', ['group', group]);
}

export function inGroup(user: string, group: string): boolean {
  const groups = spawnSync('id', ['-nG', user], { encoding: 'utf8' });
  return groups.status === 0 && groups.stdout.trim().split(/\s+/).includes(group);
}

/** The login shell of a system user that must not log in. */
export function noLoginShell(): string {
  return ['/usr/sbin/nologin', '/sbin/nologin'].find((shell) => existsSync(shell)) ?? '/bin/false';
}

/** The single executable running now; undefined when this is the bundle under Node. */
export function runningExecutable(): string | undefined {
  try {
    const sea = process.getBuiltinModule('node:sea') as { isSea(): boolean } | undefined;
    return sea?.isSea() ? process.execPath : undefined;
  } catch {
    return undefined;
  }
}

/** Same file, or same bytes (read in slices: an executable is 120 MB). */
export function sameContent(a: string, b: string): boolean {
  if (realpathSync(a) === realpathSync(b)) return true;
  if (statSync(a).size !== statSync(b).size) return false;
  const fa = openSync(a, 'r');
  const fb = openSync(b, 'r');
  try {
    const ba = Buffer.alloc(1 << 20);
    const bb = Buffer.alloc(1 << 20);
    for (;;) {
      const na = readSync(fa, ba, 0, ba.length, null);
      const nb = readSync(fb, bb, 0, bb.length, null);
      if (na !== nb || !ba.subarray(0, na).equals(bb.subarray(0, nb))) return false;
      if (na === 0) return true;
    }
  } finally {
    closeSync(fa);
    closeSync(fb);
  }
}

/**
 * Writes a file under a temporary name and renames it into place: a running service
 * keeps the executable it started from, and a cut-off install leaves no half file.
 */
export function replaceFile(target: string, write: (partial: string) => void, mode: number): void {
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  write(partial);
  chmodSync(partial, mode);
  renameSync(partial, target);
}

/**
 * Creates a directory and the parents it lacks, each new one mode 0755 whatever the
 * installer's umask: /usr/local/bin, /var/lib and /etc/systemd/system are traversed by
 * the service user and by systemd, and a root shell with umask 077 (hardened images)
 * would otherwise make them root's alone and the service unable to start.
 */
export function makeSystemDirs(dir: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !existsSync(at); at = path.dirname(at)) missing.unshift(at);
  for (const at of missing) {
    mkdirSync(at);
    chmodSync(at, 0o755);
  }
}

export const copyInto = (source: string) => (partial: string) => copyFileSync(source, partial);
export const textInto = (text: string) => (partial: string) => writeFileSync(partial, text);

/** Gives a directory tree to a user (symbolic links themselves, never what they point to); the number of entries changed. */
export function chownTree(dir: string, uid: number, gid: number): number {
  let changed = 0;
  const visit = (entry: string) => {
    const stat = lstatSync(entry);
    if (stat.uid !== uid || stat.gid !== gid) {
      lchownSync(entry, uid, gid);
      changed++;
    }
    if (stat.isDirectory()) for (const name of readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return changed;
}
