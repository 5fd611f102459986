import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { haDocs, type Hall } from './netns.ts';

// The floating address of a pair in a hall (test/support/netns.ts): Debian's keepalived on
// box a and box b, each in its box's namespace, from docs/ha/keepalived.conf as written
// but for what an installer changes too: the interface (the boxes' access link, eth1)
// and the address (one of the hall's access network). Its check asks the appliance on
// the box (`GET /v1/ha/active` at 127.0.0.1:8080, the hall's appliance port).

export interface FloatingAddress {
  /** The floating address (no prefix length). */
  ip: string;
  /** The boxes that have the address on their access link now. */
  holders(): ('a' | 'b')[];
  /** What keepalived on a box wrote, for a failure's message. */
  output(box: 'a' | 'b'): string;
  close(): Promise<void>;
}

const running = new Set<FloatingAddress>();
afterAll(async () => {
  for (const address of running) await address.close();
});

/** docs/ha/keepalived.conf for the hall: its interface and floating address replaced. */
export function hallKeepalivedConfig(ip: string): string {
  const text = haDocs('keepalived.conf')
    .replace(/^(\s*)interface eth0$/m, '$1interface eth1')
    .replace(/^(\s*)10\.0\.0\.10\/24$/m, `$1${ip}/24`);
  if (/10\.0\.0\.|eth0/.test(text.replace(/#.*$/gm, ''))) throw new Error(`docs/ha/keepalived.conf is not as the hall's test expects it:\n${text}`);
  return text;
}

/** Starts keepalived on box a and box b of the hall (the witness has no appliance and no address). */
export function startFloatingAddress(hall: Hall): FloatingAddress {
  // The hall's access network is x.y.n.0/24, its boxes .11 to .13: .100 is free.
  const ip = hall.boxes.a.accessIp.replace(/\.\d+$/, '.100');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wms-keepalived-'));
  const config = path.join(dir, 'keepalived.conf');
  writeFileSync(config, hallKeepalivedConfig(ip));
  const outputs: Record<'a' | 'b', string> = { a: '', b: '' };
  const children: Record<'a' | 'b', ChildProcess> = {} as Record<'a' | 'b', ChildProcess>;
  for (const box of ['a', 'b'] as const) {
    // In the foreground (-n), logging to its output (-l), VRRP only (-P), with pid files of its own.
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        hall.boxes[box].ns,
        'keepalived',
        '-n',
        '-l',
        '-P',
        '-f',
        config,
        '-p',
        path.join(dir, `${box}.pid`),
        '-r',
        path.join(dir, `${box}-vrrp.pid`),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (chunk: Buffer) => (outputs[box] += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (outputs[box] += chunk.toString()));
    children[box] = child;
  }
  const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  const address: FloatingAddress = {
    ip,
    holders: () =>
      (['a', 'b'] as const).filter((box) => {
        const shown = spawnSync('ip', ['-n', hall.boxes[box].ns, '-4', 'addr', 'show', 'dev', 'eth1'], { encoding: 'utf8' }).stdout;
        return shown.includes(` ${ip}/`);
      }),
    output: (box) => outputs[box],
    close: async () => {
      running.delete(address);
      await Promise.all(
        Object.values(children).map(
          (child) =>
            new Promise<void>((resolve) => {
              if (exited(child)) return resolve();
              child.once('exit', () => resolve());
              // keepalived takes its address away as it stops.
              child.kill('SIGTERM');
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
  running.add(address);
  return address;
}
