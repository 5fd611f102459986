import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, openSync, readSync, closeSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conveyor, PlcSimulator } from '../plc/simulator/index.ts';
import { tempDir } from './support/appliance.ts';
import { buildAsTheReadmeSays, expectEntryIndex, expectQuietBuild, expectReadmeSize, expectTokenAndWrite, type Build } from './support/executable.ts';

// The arm64 single executable for ARM edge boxes, built on this x64 machine and run
// under qemu-aarch64 (user-mode emulation, Debian `qemu-user`) with the arm64 C and
// C++ runtime of Debian's cross packages (`libc6-arm64-cross`, `libstdc++6-arm64-cross`).
// Copied alone into an empty folder, it serves REST (the arm64 SQLite addon) and talks
// to a PLC over a serial line (the arm64 serial addon) on a socat pseudo-terminal pair.

const QEMU = 'qemu-aarch64';
const ARM64_LIBS = '/usr/aarch64-linux-gnu';
const PASSWORD = 'arm64-test-password';
/** ELF e_machine of AArch64. */
const EM_AARCH64 = 183;

let build: Build;
let binary: string;
let folder: string;
let child: ChildProcess;
let url: string;
let exitCode: Promise<number | null>;
let socat: ChildProcess;
const ttys = { host: '', plc: '' };

/** A socat pty pair: the appliance opens ttyHOST, the simulated PLC ttyPLC. */
async function ptyPair(dir: string): Promise<void> {
  ttys.host = path.join(dir, 'ttyHOST');
  ttys.plc = path.join(dir, 'ttyPLC');
  socat = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${ttys.host}`, `pty,raw,echo=0,link=${ttys.plc}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  socat.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const deadline = Date.now() + 10_000;
  while (!(existsSync(ttys.host) && existsSync(ttys.plc))) {
    if (socat.exitCode !== null) throw new Error(`socat exited: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`socat did not create the pty links: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  for (const [need, what] of [
    [`/usr/bin/${QEMU}`, 'qemu-user'],
    [ARM64_LIBS, 'libc6-arm64-cross and libstdc++6-arm64-cross'],
  ] as const) {
    if (!existsSync(need)) throw new Error(`${need} is missing: apt-get install ${what} (npm test's pretest step, scripts/test-needs.ts, installs it)`);
  }
  build = await buildAsTheReadmeSays(['--arch', 'arm64']);
  binary = build.binary;
  folder = tempDir('wms-arm64-');
  copyFileSync(binary, path.join(folder, 'wms'));
  await ptyPair(folder);
  mkdirSync(path.join(folder, 'data'));
  writeFileSync(
    path.join(folder, 'data', 'wms.config.json'),
    JSON.stringify({ plc: { channels: [{ name: 'CNV01', transport: 'serial', device: ttys.host, baudRate: 38_400 }] } }),
  );
  child = spawn(QEMU, ['./wms', '--port', '0', '--host', '127.0.0.1'], {
    cwd: folder,
    env: { PATH: '/usr/bin:/bin', QEMU_LD_PREFIX: ARM64_LIBS, WMS_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exitCode = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*appliance started/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the arm64 executable exited with ${code} under ${QEMU}:\n${out}`)));
  });
  // The build and an emulated start take about 40 s on a quiet 2-vCPU box; beside a
  // second whole suite they took more than 170 s.
}, 420_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (socat && socat.exitCode === null) {
    const exited = new Promise((r) => socat.once('exit', r));
    socat.kill('SIGTERM');
    await exited;
  }
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('npm run build:bin -- --arch arm64', () => {
  it('prints what it built and nothing else', () => expectQuietBuild(build, 'dist/wms-linux-arm64'));

  it('builds the size the README gives', () => expectReadmeSize(build, 'dist/wms-linux-arm64', 'linux-arm64'));
});

describe('dist/wms-linux-arm64 under qemu-aarch64', () => {
  it('is an AArch64 executable, stripped by the cross binutils', () => {
    const header = Buffer.alloc(20);
    const fd = openSync(binary, 'r');
    readSync(fd, header, 0, 20, 0);
    closeSync(fd);
    expect(header.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(header.readUInt16LE(18)).toBe(EM_AARCH64);
    const sections = execFileSync('aarch64-linux-gnu-readelf', ['--section-headers', '--wide', binary], { encoding: 'utf8' });
    expect(sections).not.toMatch(/\s\.symtab\s/);
    expect(sections).not.toMatch(/\s\.debug_info\s/);
    // The registry's arm64 Node is 123 MB unstripped; stripped, with the appliance inside, it stays under 120 MB.
    expect(statSync(binary).size).toBeLessThan(120_000_000);
  });

  it('serves the public entry index', () => expectEntryIndex(url));

  it('issues a token and keeps what is written (the arm64 SQLite addon)', () => expectTokenAndWrite(url, PASSWORD, 'ARM6', 'ARM-1'));

  it('answers a PLC on a serial line (the arm64 serial addon)', async () => {
    const sim = new PlcSimulator({
      transport: { kind: 'serial', path: ttys.plc, baudRate: 38_400 },
      name: 'CNV01',
      requestTimeoutMs: 20_000,
      conveyor: new Conveyor([], { defaultMs: 5 }),
    });
    try {
      await sim.connect({ timeoutMs: 20_000 });
      const { sent, reply } = await sim.synqExchange({ timeoutMs: 20_000 });
      expect(reply).toMatchObject({ type: 'SYNC', sender: 'MFC__', receiver: 'CNV01', seq: sent.seq! + 1 });
    } finally {
      sim.close();
    }
  });

  it('stops cleanly on SIGTERM', async () => {
    child.kill('SIGTERM');
    expect(await exitCode).toBe(0);
  });
});
