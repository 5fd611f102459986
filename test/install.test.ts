import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../scripts/build.ts';
import { tempDir } from './support/appliance.ts';
import { checkAsTheDocSays, expectUnitChecksPass, INSTALL_DOC, mode, newRoot, removeRoots, spawnRun, step, UNIT_CHECKS, type Exit } from './support/install.ts';

// `wms install-service`, run as an installer runs it: the real bundle (built by the
// global setup), with --root so that every file lands in a temporary directory and no
// user, ownership or systemd of this machine is touched. The unit is checked with the
// commands docs/install.md gives (systemd's own `systemd-analyze verify` and
// `security`), inside the same root, so its ExecStart resolves to the installed
// executable. The single executable installing itself: binary.test.ts.

const UNIT = 'etc/systemd/system/wms.service';
afterAll(removeRoots);

/** `node dist/wms.cjs install-service …` */
const bundle = (args: string[], cwd = tempDir('wms-install-cwd-')) => spawnRun(process.execPath, [BUNDLE, 'install-service', ...args], cwd);

/** The same from a root shell with umask 077 (hardened images set it): what the installer creates must not depend on it. */
const bundleUnderUmask077 = (args: string[], cwd = tempDir('wms-install-cwd-')) =>
  spawnRun('/bin/sh', ['-c', 'umask 077 && exec "$@"', 'sh', process.execPath, BUNDLE, 'install-service', ...args], cwd);

/**
 * An executable already installed at `bin` below the root (the bundle under Node has
 * none of its own to copy): it answers --version as the appliance does.
 */
function placeExecutable(root: string, bin = '/usr/local/bin/wms'): string {
  const file = path.join(root, bin);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\necho "wms 0.1.0 (commit 0000000, built 2026-01-01)"\n');
  chmodSync(file, 0o755);
  return file;
}

/** The unit's settings: key → every value it is given (a key may repeat). */
function settings(text: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) map.set(m[1]!, [...(map.get(m[1]!) ?? []), m[2]!]);
  }
  return map;
}

describe('install-service from the bundle (an executable already installed)', () => {
  let root: string;
  let first: Exit;

  beforeAll(async () => {
    root = newRoot();
    placeExecutable(root);
    first = await bundleUnderUmask077(['--root', root]);
  });

  it('prints each step and exits 0', () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(step(first.stdout, 'binary')).toMatch(/\/usr\/local\/bin\/wms: the installed executable is used/);
    expect(step(first.stdout, 'user')).toMatch(/useradd --system --user-group --no-create-home .*--shell \S*nologin --groups dialout .*wms\)$/);
    expect(step(first.stdout, 'data')).toMatch(/\/var\/lib\/wms: created, mode 0700/);
    expect(step(first.stdout, 'unit')).toMatch(/\/etc\/systemd\/system\/wms\.service: written/);
    expect(step(first.stdout, 'systemd')).toMatch(/systemctl daemon-reload && systemctl enable --now wms/);
    expect(first.stdout).toMatch(/^done: installed, not started; once started it runs as wms from \/usr\/local\/bin\/wms/m);
  });

  it('creates the data directory for the service user alone (0700), the unit readable by all (0644)', () => {
    expect(mode(path.join(root, 'var/lib/wms'))).toBe(0o700);
    // Only the data directory itself is closed: the parents it created are open to all,
    // although the installer ran with umask 077.
    expect(mode(path.join(root, 'var/lib'))).toBe(0o755);
    expect(mode(path.join(root, 'var'))).toBe(0o755);
    expect(mode(path.join(root, 'etc/systemd/system'))).toBe(0o755);
    expect(mode(path.join(root, UNIT))).toBe(0o644);
  });

  it('writes a unit that restarts always, runs as the user in dialout and may write its data directory only', () => {
    const unit = settings(readFileSync(path.join(root, UNIT), 'utf8'));
    expect(unit.get('ExecStart')).toEqual(['/usr/local/bin/wms --data-dir /var/lib/wms']);
    expect(unit.get('Type')).toEqual(['simple']);
    expect(unit.get('Restart')).toEqual(['always']);
    expect(Number(unit.get('RestartSec')?.[0])).toBeGreaterThan(0);
    expect(unit.get('User')).toEqual(['wms']);
    expect(unit.get('Group')).toEqual(['wms']);
    expect(unit.get('SupplementaryGroups')).toEqual(['dialout']);
    expect(unit.get('WorkingDirectory')).toEqual(['/var/lib/wms']);
    expect(unit.get('NoNewPrivileges')).toEqual(['yes']);
    expect(unit.get('ProtectSystem')).toEqual(['strict']);
    expect(unit.get('ReadWritePaths')).toEqual(['/var/lib/wms']);
    expect(unit.get('PrivateTmp')).toEqual(['yes']);
    expect(unit.get('ProtectHome')).toEqual(['yes']);
    expect(unit.get('WantedBy')).toEqual(['multi-user.target']);
    // A fixed mmap threshold: glibc gives big blocks back when freed (BENCHMARKS.md, the memory soak).
    expect(unit.get('Environment')).toEqual(['MALLOC_MMAP_THRESHOLD_=131072']);
    // The conveyor thread may raise itself to nice -10 (server.conveyorNice), no higher.
    expect(unit.get('LimitNICE')).toEqual(['-10']);
    // No capability at all on a port above 1023.
    expect(unit.get('CapabilityBoundingSet')).toEqual(['']);
    expect(unit.has('AmbientCapabilities')).toBe(false);
    // Serial lines are devices: nothing may close /dev (PrivateDevices, DeviceAllow, ProtectClock's implied DeviceAllow).
    for (const key of ['PrivateDevices', 'DeviceAllow', 'DevicePolicy', 'ProtectClock', 'MemoryDenyWriteExecute']) {
      expect(unit.has(key), key).toBe(false);
    }
  });

  it('docs/install.md gives both checks of the unit, each for an image root', () => {
    expect(UNIT_CHECKS.map((c) => c.split(' ')[1])).toEqual(['verify', 'security']);
    for (const command of UNIT_CHECKS) expect(command).toContain('--root=/mnt/image');
  });

  it('the unit passes the checks docs/install.md gives, at the exposure it states', () => {
    const [, security] = expectUnitChecksPass(root);
    const level = /Overall exposure level for wms\.service: (\d+\.\d+) (\w+)/.exec(security!.stdout);
    expect(level, security!.stdout).not.toBeNull();
    expect(INSTALL_DOC).toContain(`overall exposure of ${level![1]} ("${level![2]}")`);
    expect(INSTALL_DOC).toContain(`overall exposure ${level![1]}, "${level![2]}"`);
  });

  it("a broken unit fails the doc's verify", () => {
    const broken = newRoot();
    cpSync(root, broken, { recursive: true });
    const unit = path.join(broken, UNIT);
    writeFileSync(unit, readFileSync(unit, 'utf8').replace('ExecStart=/usr/local/bin/wms', 'ExecStart=/usr/local/bin/wms-gone'));
    const [verify] = checkAsTheDocSays(broken);
    expect(verify!.code).not.toBe(0);
    expect(verify!.stderr).toMatch(/wms-gone is not executable/);
  });

  it('a second run changes nothing and says so', async () => {
    const unitBefore = statSync(path.join(root, UNIT));
    const again = await bundle(['--root', root]);
    expect(again.code).toBe(0);
    expect(step(again.stdout, 'unit')).toMatch(/unchanged/);
    expect(step(again.stdout, 'data')).toMatch(/\/var\/lib\/wms: kept with what it holds, mode 0700/);
    const unitAfter = statSync(path.join(root, UNIT));
    expect(unitAfter.ino).toBe(unitBefore.ino);
    expect(unitAfter.mtimeMs).toBe(unitBefore.mtimeMs);
  });

  it('a data directory left open by hand is closed again (0700)', async () => {
    chmodSync(path.join(root, 'var/lib/wms'), 0o755);
    const again = await bundle(['--root', root]);
    expect(again.code).toBe(0);
    expect(mode(path.join(root, 'var/lib/wms'))).toBe(0o700);
  });
});

describe('install-service options', () => {
  it('a port below 1024 gets CAP_NET_BIND_SERVICE, the only capability', async () => {
    const root = newRoot();
    placeExecutable(root);
    const exit = await bundle(['--root', root, '--port', '80']);
    expect(exit.code).toBe(0);
    const unit = settings(readFileSync(path.join(root, UNIT), 'utf8'));
    expect(unit.get('ExecStart')).toEqual(['/usr/local/bin/wms --data-dir /var/lib/wms --port 80']);
    expect(unit.get('AmbientCapabilities')).toEqual(['CAP_NET_BIND_SERVICE']);
    expect(unit.get('CapabilityBoundingSet')).toEqual(['CAP_NET_BIND_SERVICE']);
    expectUnitChecksPass(root);
  });

  it('a port of 1024 or more is written into ExecStart without a capability', async () => {
    const root = newRoot();
    placeExecutable(root);
    expect((await bundle(['--root', root, '--port=8443'])).code).toBe(0);
    const unit = settings(readFileSync(path.join(root, UNIT), 'utf8'));
    expect(unit.get('ExecStart')).toEqual(['/usr/local/bin/wms --data-dir /var/lib/wms --port 8443']);
    expect(unit.has('AmbientCapabilities')).toBe(false);
  });

  it("user, data directory and executable path are the installer's choice", async () => {
    const root = newRoot();
    placeExecutable(root, '/opt/wms/bin/wms');
    const exit = await bundle(['--root', root, '--user', 'conveyor', '--data-dir', '/srv/wms/data', '--bin', '/opt/wms/bin/wms']);
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    const unit = settings(readFileSync(path.join(root, UNIT), 'utf8'));
    expect(unit.get('User')).toEqual(['conveyor']);
    expect(unit.get('ExecStart')).toEqual(['/opt/wms/bin/wms --data-dir /srv/wms/data']);
    expect(unit.get('ReadWritePaths')).toEqual(['/srv/wms/data']);
    expect(unit.get('WorkingDirectory')).toEqual(['/srv/wms/data']);
    expect(mode(path.join(root, 'srv/wms/data'))).toBe(0o700);
    expectUnitChecksPass(root);
  });

  it('--dry-run prints the steps and the unit and writes nothing', async () => {
    const root = newRoot();
    placeExecutable(root);
    const exit = await bundle(['--root', root, '--dry-run', '--port', '443']);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/^dry run, nothing is changed/);
    expect(step(exit.stdout, 'data')).toMatch(/would create \/var\/lib\/wms, mode 0700/);
    expect(step(exit.stdout, 'unit')).toMatch(/would write \/etc\/systemd\/system\/wms\.service/);
    expect(exit.stdout).toContain('ExecStart=/usr/local/bin/wms --data-dir /var/lib/wms --port 443');
    expect(readdirSync(root)).toEqual(['usr']);
  });

  it('from the bundle with no executable installed, it refuses, says why and writes nothing', async () => {
    const root = newRoot();
    const exit = await bundle(['--root', root]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/^wms install-service: this is the bundle run by Node .*not the single executable.*--bin/);
    expect(readdirSync(root)).toEqual([]);
  });

  it('an installed file that is not the appliance is refused (an uninstall would delete it)', async () => {
    const root = newRoot();
    const other = path.join(root, 'usr/local/bin/wms');
    mkdirSync(path.dirname(other), { recursive: true });
    writeFileSync(other, '#!/bin/sh\necho "Python 3.11"\n');
    chmodSync(other, 0o755);
    const exit = await bundle(['--root', root]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/does not answer --version as wms/);
    expect(existsSync(path.join(root, UNIT))).toBe(false);
  });

  it.each([
    [['--port', '0'], /--port must be a TCP port/],
    [['--port', 'http'], /--port must be a TCP port/],
    [['--data-dir', 'data'], /--data-dir must be an absolute path/],
    [['--data-dir', '/home/wms'], /under \/home, which the hardened service cannot use/],
    [['--data-dir', '/tmp/wms'], /under \/tmp/],
    [['--data-dir', '/var'], /too close to \//],
    [['--data-dir', '/var/lib/my wms'], /absolute path of letters/],
    [['--bin', 'wms'], /--bin must be an absolute path/],
    [['--user', 'root'], /not a name for a system user/],
    [['--user', 'Wms User'], /not a name for a system user/],
    [['--user'], /--user needs a value/],
    [['--purge'], /--purge goes with --uninstall/],
    [['--uninstall', '--port', '80'], /--port has no use with --uninstall/],
    [['--frobnicate'], /unknown option --frobnicate/],
  ])('%j is refused with exit code 2 and changes nothing', async (args, message) => {
    const root = newRoot();
    const exit = await bundle(['--root', root, ...args]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(message);
    expect(exit.stdout).toBe('');
    expect(readdirSync(root)).toEqual([]);
  });

  it('--help prints the usage with the subcommand', async () => {
    const exit = await bundle(['--help']);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/wms install-service \[--user wms\]/);
    expect(exit.stdout).toMatch(/--uninstall/);
  });
});

describe('install-service --uninstall', () => {
  let root: string;

  beforeAll(async () => {
    root = newRoot();
    placeExecutable(root, '/opt/wms/wms');
    const installed = await bundle(['--root', root, '--user', 'conveyor', '--data-dir', '/srv/wms', '--bin', '/opt/wms/wms']);
    expect(installed.code).toBe(0);
    // What the appliance leaves in its data directory.
    writeFileSync(path.join(root, 'srv/wms/wms.sqlite'), 'database');
  });

  it('removes the unit and the executable found in the installed unit, keeps the data and says so', async () => {
    const exit = await bundle(['--root', root, '--uninstall']);
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    expect(existsSync(path.join(root, UNIT))).toBe(false);
    expect(existsSync(path.join(root, 'opt/wms/wms'))).toBe(false);
    expect(readFileSync(path.join(root, 'srv/wms/wms.sqlite'), 'utf8')).toBe('database');
    expect(step(exit.stdout, 'unit')).toMatch(/wms\.service: removed/);
    expect(step(exit.stdout, 'binary')).toMatch(/\/opt\/wms\/wms: removed/);
    expect(step(exit.stdout, 'data')).toMatch(/\/srv\/wms: kept .*--uninstall --purge --user conveyor --data-dir \/srv\/wms/);
    expect(step(exit.stdout, 'user')).toMatch(/conveyor: kept/);
  });

  it('a second uninstall finds nothing to remove', async () => {
    const exit = await bundle(['--root', root, '--uninstall']);
    expect(exit.code).toBe(0);
    expect(step(exit.stdout, 'unit')).toMatch(/not there/);
  });

  it('--purge removes the data directory too', async () => {
    const exit = await bundle(['--root', root, '--uninstall', '--purge', '--user', 'conveyor', '--data-dir', '/srv/wms']);
    expect(exit.code).toBe(0);
    expect(existsSync(path.join(root, 'srv/wms'))).toBe(false);
    expect(existsSync(path.join(root, 'srv'))).toBe(true);
    expect(step(exit.stdout, 'data')).toMatch(/\/srv\/wms: removed/);
    expect(step(exit.stdout, 'user')).toMatch(/userdel conveyor/);
  });
});
