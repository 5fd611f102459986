import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSerialPorts } from './ports.ts';

// Listing serial devices from the file system (no udevadm), on a fake /dev and /sys.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fakeRoot() {
  const root = mkdtempSync(path.join(tmpdir(), 'plc-ports-'));
  dirs.push(root);
  const dev = path.join(root, 'dev');
  const sys = path.join(root, 'sys');
  mkdirSync(path.join(dev, 'serial', 'by-id'), { recursive: true });
  for (const name of ['ttyS0', 'ttyS1', 'ttyS10', 'ttyUSB0', 'ttyACM0', 'tty0', 'ttyprintk', 'null']) writeFileSync(path.join(dev, name), '');
  for (const [name, type] of [
    ['ttyS0', '4'],
    ['ttyS1', '0'],
    ['ttyS10', '4'],
  ] as const) {
    mkdirSync(path.join(sys, name), { recursive: true });
    writeFileSync(path.join(sys, name, 'type'), `${type}\n`);
  }
  symlinkSync('../../ttyUSB0', path.join(dev, 'serial', 'by-id', 'usb-FTDI_FT232R_A1B2C3-if00-port0'));
  symlinkSync('../../ttyUSB9', path.join(dev, 'serial', 'by-id', 'usb-pulled-if00-port0'));
  return { dev, sys };
}

describe('listSerialPorts', () => {
  it('lists ttyS (with hardware), ttyUSB and ttyACM, with their stable by-id names, in natural order', async () => {
    const { dev, sys } = fakeRoot();
    expect(await listSerialPorts({ devDir: dev, sysDir: sys })).toEqual([
      { path: path.join(dev, 'ttyACM0') },
      { path: path.join(dev, 'ttyS0') },
      { path: path.join(dev, 'ttyS10') },
      { path: path.join(dev, 'ttyUSB0'), byId: path.join(dev, 'serial', 'by-id', 'usb-FTDI_FT232R_A1B2C3-if00-port0') },
    ]);
  });

  it('lists nothing, without failing, where there is no such directory', async () => {
    expect(await listSerialPorts({ devDir: '/nonexistent-dev', sysDir: '/nonexistent-sys' })).toEqual([]);
  });

  it("reads this machine's /dev without udevadm, and details do not fail when serialport's list cannot run", async () => {
    const plain = await listSerialPorts();
    for (const p of plain) expect(p.path).toMatch(/^\/dev\/tty(S|USB|ACM)\d+$/);
    const detailed = await listSerialPorts({ details: true });
    expect(detailed.map((p) => p.path)).toEqual(plain.map((p) => p.path));
  });
});
