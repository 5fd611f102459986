import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, chmodSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Run } from './run.ts';
import {
  InstallError,
  chownTree,
  command,
  copyInto,
  groupExists,
  inGroup,
  initName,
  makeSystemDirs,
  noLoginShell,
  replaceFile,
  runningExecutable,
  sameContent,
  succeeds,
  systemdRunning,
  textInto,
  userIds,
} from './system.ts';
import { UNIT_DIR, UNIT_NAME, serviceUnit } from './unit.ts';

// `wms install-service`: executable, user, data directory, unit, started. Each step
// first looks at what is there, so a second run changes only what differs (an
// upgrade: a new executable, and the service restarted onto it).

export function install(r: Run): void {
  const { o } = r;
  r.requireRoot();
  r.line(`${o.dryRun ? 'dry run, nothing is changed: ' : ''}installing the service wms${o.root ? ` below ${o.root}` : ''}`);
  const binaryChanged = installExecutable(r);
  installUser(r);
  installDataDir(r);
  const unit = serviceUnit(o);
  const unitChanged = installUnit(r, unit);
  const started = startService(r, binaryChanged || unitChanged);
  if (o.dryRun) {
    r.line(`\nthe unit ${path.join(UNIT_DIR, UNIT_NAME)} would read:\n`);
    r.line(unit.trimEnd());
    return;
  }
  const port = o.port !== undefined ? `port ${o.port}` : 'the port of its settings (8080 unless set)';
  r.line(
    started
      ? `done: the appliance runs as ${o.user} from ${o.bin} on ${port}, data in ${o.dataDir}; logs: journalctl -u wms -f`
      : `done: installed, not started; once started it runs as ${o.user} from ${o.bin} on ${port}, data in ${o.dataDir}`,
  );
}

/** The running single executable copied to --bin; false when it was there already. */
function installExecutable(r: Run): boolean {
  const { o } = r;
  const target = r.at(o.bin);
  const source = runningExecutable();
  if (!source) {
    // The bundle under Node has no executable of its own to install: only one already in place will do.
    if (!existsSync(target)) {
      throw new InstallError(
        `this is the bundle run by Node (${process.argv[1] ?? 'wms.cjs'}), not the single executable, so there is nothing to copy to ${o.bin}: ` +
          'run install-service from the single executable (npm run build:bin makes dist/wms), or point --bin at an installed one',
      );
    }
    checkInstalled(target, o.bin);
    r.say('binary', `${o.bin}: the installed executable is used as it is (run from the bundle, nothing to copy)`);
    return false;
  }
  if (existsSync(target) && sameContent(source, target)) {
    r.say('binary', `${o.bin}: already this executable, unchanged`);
    return false;
  }
  const mb = Math.round(statSync(source).size / 1e6);
  r.change('binary', `copy ${source} to ${o.bin} (${mb} MB, mode 0755)`, `${o.bin}: copied from ${source} (${mb} MB, mode 0755)`, () => {
    makeSystemDirs(path.dirname(target));
    replaceFile(target, copyInto(source), 0o755);
  });
  return true;
}

/** An executable already at --bin must be the appliance's: the unit starts it and an uninstall deletes it. */
function checkInstalled(file: string, shown: string): void {
  try {
    accessSync(file, constants.X_OK);
  } catch {
    throw new InstallError(`${shown} is not executable`);
  }
  let answer = '';
  try {
    answer = execFileSync(file, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 });
  } catch {
    // Answered below.
  }
  if (!answer.startsWith('wms ')) throw new InstallError(`${shown} does not answer --version as wms: it is not the appliance's executable`);
}

function installUser(r: Run): void {
  const { o } = r;
  const args = [
    '--system',
    '--user-group',
    '--no-create-home',
    '--home-dir',
    o.dataDir,
    '--shell',
    noLoginShell(),
    '--groups',
    'dialout',
    '--comment',
    'Warehouse appliance',
    o.user,
  ];
  const useradd = ['useradd', ...args].map((a) => (a.includes(' ') ? `'${a}'` : a)).join(' ');
  if (!r.onMachine) {
    r.say('user', `${o.user}: not created below --root (on the box: ${useradd})`);
    return;
  }
  if (!groupExists('dialout')) {
    throw new InstallError(
      'this system has no group dialout (the owner group of serial devices on Debian and Ubuntu): create it with groupadd --system dialout, or give the serial devices to such a group',
    );
  }
  if (!userIds(o.user)) {
    r.change('user', `create the system user ${o.user} (${useradd})`, `${o.user}: system user created, in dialout, no login shell, no home of its own`, () =>
      command('useradd', args),
    );
  } else if (!inGroup(o.user, 'dialout')) {
    r.change('user', `add ${o.user} to dialout`, `${o.user}: exists, added to dialout`, () => command('usermod', ['--append', '--groups', 'dialout', o.user]));
  } else {
    r.say('user', `${o.user}: exists and is in dialout, unchanged`);
  }
}

/** The data directory: only the service's user may read it (the database holds users, keys and the signing key). */
function installDataDir(r: Run): void {
  const { o } = r;
  const dir = r.at(o.dataDir);
  const existed = existsSync(dir);
  if (existed && !statSync(dir).isDirectory()) throw new InstallError(`${o.dataDir} exists and is not a directory`);
  const ids = r.onMachine ? userIds(o.user) : undefined;
  const owner = r.onMachine ? `owned by ${o.user}` : 'owner left as is below --root';
  let given = 0;
  r.change(
    'data',
    `${existed ? 'keep' : 'create'} ${o.dataDir}, mode 0700, owned by ${o.user}`,
    () =>
      `${o.dataDir}: ${existed ? 'kept with what it holds' : 'created'}, mode 0700, ${owner}${existed && given > 0 ? ` (${given} entries given to ${o.user})` : ''}`,
    () => {
      makeSystemDirs(path.dirname(dir));
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o700);
      // Files written before (a run by hand as root, a restored backup) become the service's.
      if (ids) given = chownTree(dir, ids.uid, ids.gid);
    },
  );
}

/** The unit file; false when it already read the same. */
function installUnit(r: Run, unit: string): boolean {
  const file = path.join(UNIT_DIR, UNIT_NAME);
  const target = r.at(file);
  if (existsSync(target) && readFileSync(target, 'utf8') === unit) {
    r.say('unit', `${file}: unchanged`);
    return false;
  }
  const verb = existsSync(target) ? 'rewritten' : 'written';
  r.change('unit', `write ${file} (mode 0644)`, `${file}: ${verb} (Restart=always, hardened: see the file)`, () => {
    makeSystemDirs(path.dirname(target));
    replaceFile(target, textInto(unit), 0o644);
  });
  return true;
}

/** Enabled and started by systemd: true; false where nothing could be started (below --root, no systemd). */
function startService(r: Run, changed: boolean): boolean {
  const { o } = r;
  const start = 'systemctl daemon-reload && systemctl enable --now wms';
  if (!r.onMachine) {
    r.say('systemd', `nothing started below --root (on the box: ${start})`);
    return false;
  }
  if (!systemdRunning()) {
    r.say(
      'systemd',
      `not running on this machine (PID 1 is ${initName()}): the unit takes effect where systemd runs (${start}); ` +
        `meanwhile start it by hand: runuser -u ${o.user} -- ${o.bin} --data-dir ${o.dataDir}${o.port !== undefined ? ` --port ${o.port}` : ''}`,
    );
    return false;
  }
  const wasActive = succeeds('systemctl', ['is-active', '--quiet', UNIT_NAME]);
  r.change('systemd', 'reload the units (systemctl daemon-reload)', 'units reloaded', () => command('systemctl', ['daemon-reload']));
  r.change('service', 'enable and start wms (systemctl enable --now wms)', 'wms enabled at boot and started', () =>
    command('systemctl', ['enable', '--now', UNIT_NAME]),
  );
  if (wasActive && changed) {
    r.change('service', 'restart wms onto the new executable or unit', 'wms restarted onto the new executable or unit', () =>
      command('systemctl', ['restart', UNIT_NAME]),
    );
  }
  return true;
}
