import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EventRecord } from '../../core/event-catalogue.ts';
import type { EventBus } from '../../core/events.ts';
import type { Logger } from '../../core/log.ts';

/**
 * The first admin's generated password goes to a file only the appliance's user can
 * read, not into the log: logs are shipped, kept and read by more people than the box.
 */
const INITIAL_PASSWORD_FILE = 'initial-admin-password';

export function writeInitialPassword(dataDir: string, password: string): string {
  const file = path.join(dataDir, INITIAL_PASSWORD_FILE);
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return file;
}

/**
 * Once admin's password is changed, the generated one is worthless: its file goes, once
 * the change is on disk (a power cut that takes the change back leaves the file).
 */
export function forgetInitialPasswordOnChange(dataDir: string, bus: EventBus, log: Logger): void {
  const file = path.join(dataDir, INITIAL_PASSWORD_FILE);
  if (!existsSync(file)) return;
  const off = bus.onAnyDurable((event) => {
    if (event.type !== 'user.passwordChanged' || (event as EventRecord<'user.passwordChanged'>).data.username !== 'admin') return;
    rmSync(file, { force: true });
    off();
    log.info({ file }, 'the password of user admin was changed; the generated one is removed');
  });
}
