import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DEFAULTS, checkPath } from './options.ts';
import type { Run } from './run.ts';
import { command, initName, systemdRunning, userIds } from './system.ts';
import { UNIT_DIR, UNIT_NAME, readUnit } from './unit.ts';

// `wms install-service --uninstall [--purge]`: the service stopped, its unit and
// executable removed. The data directory (database, backups, config) stays unless
// --purge asks for it and the user to go too. Paths and user come from the installed
// unit unless given, so a custom install is removed without repeating its options.

export function uninstall(r: Run): void {
  const { o } = r;
  r.requireRoot();
  const unitFile = path.join(UNIT_DIR, UNIT_NAME);
  const unitPath = r.at(unitFile);
  const installed = existsSync(unitPath) ? readUnit(readFileSync(unitPath, 'utf8')) : {};
  const user = o.given.has('user') || !installed.user ? o.user : installed.user;
  const dataDir = o.given.has('dataDir') || !installed.dataDir ? o.dataDir : checkPath("the unit's --data-dir", installed.dataDir);
  const bin = o.given.has('bin') || !installed.bin ? o.bin : checkPath("the unit's ExecStart", installed.bin);
  r.line(`${o.dryRun ? 'dry run, nothing is changed: ' : ''}removing the service wms${o.root ? ` below ${o.root}` : ''}`);

  const systemd = r.onMachine && systemdRunning();
  if (!r.onMachine) r.say('service', 'nothing to stop below --root');
  else if (!systemd) r.say('service', `systemd is not running on this machine (PID 1 is ${initName()}): nothing to stop`);
  else if (existsSync(unitPath)) {
    r.change('service', 'stop and disable wms (systemctl disable --now wms)', 'wms stopped and disabled', () =>
      command('systemctl', ['disable', '--now', UNIT_NAME]),
    );
  }

  if (existsSync(unitPath)) {
    r.change('unit', `remove ${unitFile}`, `${unitFile}: removed`, () => rmSync(unitPath));
    if (systemd) r.change('systemd', 'reload the units (systemctl daemon-reload)', 'units reloaded', () => command('systemctl', ['daemon-reload']));
  } else {
    r.say('unit', `${unitFile}: not there`);
  }

  const binPath = r.at(bin);
  if (existsSync(binPath)) r.change('binary', `remove ${bin}`, `${bin}: removed`, () => rmSync(binPath));
  else r.say('binary', `${bin}: not there`);

  const dataPath = r.at(dataDir);
  if (!o.purge) {
    // With the unit gone, a later purge must be told where a custom install kept its data.
    const custom = `${user !== DEFAULTS.user ? ` --user ${user}` : ''}${dataDir !== DEFAULTS.dataDir ? ` --data-dir ${dataDir}` : ''}`;
    r.say('data', `${dataDir}: kept (database, backups, settings); wms install-service --uninstall --purge${custom} removes it and the user ${user}`);
    r.say('user', `${user}: kept, it owns ${dataDir}`);
    return;
  }
  if (existsSync(dataPath)) {
    r.change('data', `remove ${dataDir} and everything in it`, `${dataDir}: removed with the database and its backups`, () =>
      rmSync(dataPath, { recursive: true, force: true }),
    );
  } else {
    r.say('data', `${dataDir}: not there`);
  }
  if (!r.onMachine) r.say('user', `${user}: not removed below --root (on the box: userdel ${user})`);
  else if (userIds(user)) r.change('user', `remove the user ${user} (userdel ${user})`, `${user}: removed`, () => command('userdel', [user]));
  else r.say('user', `${user}: not there`);
}
