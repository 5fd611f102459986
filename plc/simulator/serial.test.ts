import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeHost, type ByteStream } from './fake-host.ts';
import { PlcSimulator, type SimulatorOptions } from './simulator.ts';

// The serial transport over a real pseudo-terminal pair from socat (docs/plc.md ("The simulator")):
// the simulator opens ttyPLC, the fake host reads and answers on ttyHOST.

interface OpenPort extends ByteStream {
  close(callback?: (err: Error | null) => void): void;
  isOpen: boolean;
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function ptyPair(): Promise<{ host: string; plc: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'plc-sim-pty-'));
  const host = join(dir, 'ttyHOST');
  const plc = join(dir, 'ttyPLC');
  const socat: ChildProcess = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${host}`, `pty,raw,echo=0,link=${plc}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  socat.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  cleanup.push(async () => {
    if (socat.exitCode === null) {
      const exited = new Promise((r) => socat.once('exit', r));
      socat.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 10_000;
  while (!(existsSync(host) && existsSync(plc))) {
    if (socat.exitCode !== null) throw new Error(`socat exited: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`socat did not create the pty links: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { host, plc };
}

async function openPort(path: string, baudRate: number): Promise<OpenPort> {
  const { SerialPort } = await import('serialport');
  const port = await new Promise<OpenPort>((resolve, reject) => {
    const p = new SerialPort({ path, baudRate }, (err) => (err ? reject(err) : resolve(p as unknown as OpenPort)));
  });
  cleanup.push(() => new Promise<void>((r) => (port.isOpen ? port.close(() => r()) : r())));
  return port;
}

async function setup(framing: 'line' | 'stxetx-bcc', options: Partial<SimulatorOptions> = {}) {
  const { host: hostPath, plc } = await ptyPair();
  const baudRate = (options.transport?.kind === 'serial' && options.transport.baudRate) || 38_400;
  const fake = new FakeHost({ framing, routes: { CONV0001000100000000: 'CONV0001000200000000' } });
  const conn = fake.attach(await openPort(hostPath, baudRate));
  const sim = new PlcSimulator({
    ...options,
    transport: { kind: 'serial', path: plc, baudRate },
    framing: framing === 'line' ? { mode: 'line' } : { mode: 'stxetx', bcc: true },
  });
  cleanup.push(() => sim.close());
  await sim.connect();
  return { sim, fake, conn };
}

describe('PlcSimulator over a serial line (socat pty pair)', () => {
  it('sends a SYNQ and receives the SYNC from the other end', async () => {
    const { sim, fake, conn } = await setup('line');
    expect(sim.link?.description).toMatch(/^serial .*ttyPLC @ 38400 8N1$/);
    const sync = await sim.synq({ timeoutMs: 3000 });
    expect(sync).toMatchObject({ type: 'SYNC', sender: 'MFC__', receiver: 'CNV01', seq: 2 });
    await fake.until(() => conn.bytes.length === 162);
    expect(conn.bytes.toString('latin1')).toMatch(/^###00160CNV01MFC__00001SYNQ\d{14}\*{119}\r\n$/);
  });

  it('a telegram split in two writes arrives whole; a REQ_ gets its RES_', async () => {
    const { sim, fake, conn } = await setup('line');
    await sim.sendSplit({ type: 'SYNQ' }, [70], 30);
    await sim.expect('SYNC', () => true, 3000, { since: 0 });
    const res = await sim.request({ barcode: '4711', actualLocation: 'CONV/0001/0001/0000/0000' }, { timeoutMs: 3000 });
    expect(res.targetLocation).toBe('CONV/0001/0002/0000/0000');
    await fake.until(() => conn.telegrams.length === 2);
    expect(conn.telegrams.map((t) => t.slice(23, 27))).toEqual(['SYNQ', 'REQ_']);
  });

  it('stxetx framing with BCC both ways', async () => {
    const { sim, fake, conn } = await setup('stxetx-bcc');
    const sync = await sim.synq({ timeoutMs: 3000 });
    expect(sync.type).toBe('SYNC');
    await fake.until(() => conn.bytes.length === 163);
    const wire = conn.bytes;
    expect(wire[0]).toBe(0x02);
    expect(wire.subarray(1, 161).toString('latin1')).toMatch(/^###00160CNV01MFC__00001SYNQ/);
    expect(wire[161]).toBe(0x03);
    let bcc = 0;
    for (const b of wire.subarray(1, 162)) bcc ^= b;
    expect(wire[162]).toBe(bcc);
  });

  it('slow serial: 9600 baud, writes paced like the real line', async () => {
    const { sim, fake, conn } = await setup('line', { transport: { kind: 'serial', path: '', baudRate: 9600 }, lineSpeed: 9600 });
    expect(sim.link?.description).toMatch(/@ 9600 8N1$/);
    const res = await sim.request({ barcode: '4711', actualLocation: 'CONV/0001/0001/0000/0000' }, { timeoutMs: 3000 });
    expect(res.targetLocation).toBe('CONV/0001/0002/0000/0000');
    await fake.until(() => conn.bytes.length === 162);
    // Paced in 16-byte pieces about 17 ms apart: the host sees it arrive in pieces.
    expect(conn.chunks).toBeGreaterThanOrEqual(2);
  });
});
