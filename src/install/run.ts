import path from 'node:path';
import type { InstallOptions } from './options.ts';
import { InstallError } from './system.ts';

// What every step shares: where files go (below --root when given), whether changes
// are made or only announced (--dry-run), and one printed line per outcome.

export class Run {
  readonly o: InstallOptions;
  private readonly out: (line: string) => void;

  constructor(o: InstallOptions, out: (line: string) => void) {
    this.o = o;
    this.out = out;
  }

  /** A path of the installed system, as a file of this machine (below --root when given). */
  at(file: string): string {
    return this.o.root ? path.join(this.o.root, file) : file;
  }

  /** Whether the machine itself is changed (users, ownership, systemd), not only files below --root. */
  get onMachine(): boolean {
    return this.o.root === undefined;
  }

  say(step: string, text: string): void {
    this.out(`  ${step.padEnd(8)} ${text}`);
  }

  line(text: string): void {
    this.out(text);
  }

  /** A change: carried out and reported (`did` may be told by what the action found), or in a dry run only announced. */
  change(step: string, would: string, did: string | (() => string), action: () => void): void {
    if (this.o.dryRun) {
      this.say(step, `would ${would}`);
      return;
    }
    action();
    this.say(step, typeof did === 'string' ? did : did());
  }

  /** Changing users and systemd takes root; files below --root and dry runs do not. */
  requireRoot(): void {
    if (this.onMachine && !this.o.dryRun && process.getuid?.() !== 0) {
      throw new InstallError('it changes the system (user, /etc/systemd, /usr/local/bin): run it as root, or add --dry-run to see the steps');
    }
  }
}
