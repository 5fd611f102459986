import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../../../scripts/build.ts';
import { EXIT, runSimulatorCli } from '../cli.ts';
import { freePort } from './server.ts';
import { CLI, simulateChild, simulateInProcess } from '../../../test/support/signal-simulator.ts';

// Signal mode's command line: bad arguments are refused with one line and exit code 2
// before anything starts (no port is listened on, no device opened); a server that cannot
// start is exit code 1; and the appliance's bundle (`wms simulate`) carries Modbus and
// says plainly whether it carries OPC UA.

const L1 = 'CONV/0001/0001/0000/0000';
const L2 = 'CONV/0001/0002/0000/0000';

async function inProcess(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSimulatorCli(argv, { program: 'wms simulate', out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

function exec(file: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [file, ...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** Whether anything accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const held: net.Server[] = [];
afterAll(async () => {
  await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
});

describe('signal mode: bad arguments', () => {
  it('are refused with one line on stderr and exit code 2, and nothing listens', async () => {
    const port = await freePort('127.0.0.1');
    const { code, stdout, stderr } = await exec(CLI, ['--protocol', 'modbus-tcp', '--listen', `127.0.0.1:${port}`, '--locations', `${L1},CONV/0001`, 'serve']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('npm run plc:sim: "CONV/0001" is not a location coordinate AREA/AISLE/X/Y/Z (each part 1-20 of A-Z a-z 0-9 _ . -)\n');
    expect(await listening(port)).toBe(false);
  });

  it.each([
    [['--protocol', 's7', 'serve'], '--protocol must be osip, opcua, modbus-tcp, modbus-rtu, got "s7"'],
    [['--protocol', 'opcua', 'serve'], "give the conveyor's locations: --locations COORDINATE[=PLCCODE],…"],
    [['--protocol', 'opcua', '--locations', L1], 'no command given: serve or run-tu (see --help)'],
    [['--protocol', 'opcua', '--locations', L1, 'synq'], 'unknown command "synq" in signal mode: serve or run-tu (see --help)'],
    [['--protocol', 'opcua', '--locations', L1, 'serve', L2], 'usage: serve (the locations are --locations)'],
    [['--protocol', 'modbus-tcp', '--locations', L1, '--framing', 'stxetx', 'serve'], '--framing applies to --protocol osip'],
    [['--tcp', '127.0.0.1:1', '--locations', L1, 'synq'], '--locations applies to signal mode (--protocol opcua, modbus-tcp or modbus-rtu)'],
    [['--protocol', 'modbus-rtu', '--locations', L1, 'serve'], "modbus-rtu needs --serial PATH (the simulator's end of the line)"],
    [
      ['--protocol', 'modbus-rtu', '--serial', '/dev/ttyS0', '--listen', '5020', '--locations', L1, 'serve'],
      '--listen applies to opcua and modbus-tcp; modbus-rtu serves on --serial',
    ],
    [['--protocol', 'modbus-rtu', '--serial', '/dev/ttyS0', '--parity', 'mark', '--locations', L1, 'serve'], '--parity must be none, even or odd, got "mark"'],
    [['--protocol', 'modbus-tcp', '--serial', '/dev/ttyS0', '--locations', L1, 'serve'], '--serial applies to modbus-rtu; modbus-tcp serves on --listen'],
    [['--protocol', 'opcua', '--unit', '2', '--locations', L1, 'serve'], '--unit applies to modbus-tcp and modbus-rtu'],
    [['--protocol', 'modbus-tcp', '--unit', '0', '--locations', L1, 'serve'], '--unit must be 1 to 247, got 0'],
    [['--protocol', 'modbus-tcp', '--listen', '70000', '--locations', L1, 'serve'], '--listen needs [HOST:]PORT, got "70000"'],
    [
      ['--protocol', 'modbus-tcp', '--name', 'my plc', '--locations', L1, 'serve'],
      '--name must be 1 to 32 letters, digits, _ . or - (not index), got "my plc"',
    ],
    [['--protocol', 'modbus-tcp', '--locations', `${L1},${L2}=17`, '--locations', `CONV/0001/0003/0000/0000=17`, 'serve'], '17 is named twice in --locations'],
    [['--protocol', 'modbus-tcp', '--locations', L1, 'run-tu', '4711', L2], `${L2} is not one of --locations (a coordinate or its PLC code)`],
    [['--protocol', 'modbus-tcp', '--locations', L1, 'run-tu', '4711'], 'usage: run-tu BARCODE START'],
    [['--protocol', 'modbus-tcp', '--locations', L1, 'run-tu', 'X'.repeat(21), L1], 'a barcode has at most 20 characters here, got 21'],
  ])('%j', async (argv, message) => {
    expect(await inProcess(argv)).toEqual({ code: EXIT.badArguments, out: [], err: [`wms simulate: ${message}`] });
  });

  it('--help describes signal mode beside OSIP', async () => {
    const help = await inProcess(['--help']);
    expect(help.code).toBe(EXIT.ok);
    const text = help.out.join('\n');
    expect(text).toContain('Signal mode (--protocol opcua | modbus-tcp | modbus-rtu)');
    expect(text).toContain('run-tu BARCODE START       wait for the appliance');
    expect(text).toContain('  wms simulate --protocol modbus-tcp --listen 5020 --groups CONV');
  });
});

describe('signal mode: a server that cannot start', () => {
  it('a port that is taken: exit code 1, one line', async () => {
    const server = net.createServer();
    held.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const { code, out, err } = await inProcess(['--protocol', 'modbus-tcp', '--listen', `127.0.0.1:${port}`, '--locations', L1, 'serve']);
    expect(code).toBe(EXIT.failed);
    expect(out).toEqual([]);
    expect(err).toEqual([expect.stringMatching(new RegExp(`^wms simulate: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`))]);
  });

  it('a serial device that is not there: exit code 1, one line', async () => {
    const { code, err } = await inProcess(['--protocol', 'modbus-rtu', '--serial', '/nonexistent/ttyPLC', '--locations', L1, 'serve']);
    expect(code).toBe(EXIT.failed);
    expect(err).toEqual([expect.stringMatching(/^wms simulate: cannot open \/nonexistent\/ttyPLC: /)]);
  });
});

describe('serve: commands from standard input', () => {
  it('reports a command it cannot carry out and goes on; quit ends it with exit code 0', async () => {
    const sim = simulateInProcess(['--protocol', 'modbus-tcp', '--listen', '127.0.0.1:0', '--locations', `${L1},${L2}=17`, '--groups', 'CONV', 'serve']);
    await sim.line(/^serving/);
    for (const line of [
      'bogus',
      `lock ${L1} sideways on`,
      'error 17 99999',
      'group HALL on',
      'arrive 4711 CONV/0009/0001/0000/0000',
      'error 17 12',
      'group CONV in off',
      'show',
    ])
      sim.send(line);
    await sim.line(/^ {3}hr:0 = 0 {3}\(heartbeat\)$/);
    expect(await sim.stop()).toBe(0);
    const after = sim.lines.slice(sim.lines.findIndex((l) => l.startsWith('serving')) + 1);
    expect(after).toEqual([
      '!! unknown command "bogus" (help lists them)',
      '!! usage: lock LOCATION in|out on|off',
      '!! usage: error LOCATION CODE (a whole number 0-65535; the appliance takes 0-9999)',
      '!! HALL is not one of --groups',
      '!! CONV/0009/0001/0000/0000 is not one of --locations (a coordinate or its PLC code)',
      `>> hr:101 = 12   (plcState at ${L2})`,
      '>> hr:10 = 2   (group CONV)',
      ...sim.lines.filter((l) => l.startsWith('   ')),
    ]);
    expect(after).toContain(`   hr:101 = 12   (plcState at ${L2})`);
  });
});

describe('serve as a process', () => {
  it('ends on SIGTERM (a service stop, Ctrl-C) with exit code 0, its port closed', async () => {
    const port = await freePort('127.0.0.1');
    const sim = simulateChild(['--protocol', 'modbus-tcp', '--listen', `127.0.0.1:${port}`, '--locations', L1, 'serve']);
    await sim.line(/^serving/);
    expect(await listening(port)).toBe(true);
    expect(await sim.stop()).toBe(0);
    expect(sim.stderr()).toBe('');
    expect(await listening(port)).toBe(false);
  });
});

describe("wms simulate from the appliance's bundle", () => {
  it('serves Modbus TCP: the entry, then quit from standard input, exit code 0', async () => {
    const { code, stdout, stderr } = await exec(
      BUNDLE,
      ['simulate', '--protocol', 'modbus-tcp', '--listen', '127.0.0.1:0', '--locations', L1, 'serve'],
      'quit\n',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Modbus TCP slave on 127\.0\.0\.1:\d+, unit 1$/m);
    expect(stdout).toContain(
      `  {"kind": "arrival", "location": "${L1}", "barcode": "hr:1000*10", "trigger": "coil:0", "target": "hr:1010*16", "done": "coil:1"},`,
    );
  });

  it('OPC UA: the bundle serves it from opcua-simulator.cjs beside it; a bundle copied without it answers exit code 2 saying so', async () => {
    const args = ['simulate', '--protocol', 'opcua', '--listen', '127.0.0.1:0', '--locations', L1, 'serve'];
    const served = await exec(BUNDLE, args, 'quit\n');
    expect(served.stderr).toBe('');
    expect(served.code).toBe(0);
    expect(served.stdout).toMatch(/^OPC UA server on 127\.0\.0\.1:\d+$/m);
    const alone = mkdtempSync(path.join(os.tmpdir(), 'wms-sim-bundle-'));
    try {
      copyFileSync(BUNDLE, path.join(alone, 'wms.cjs'));
      const missing = await exec(path.join(alone, 'wms.cjs'), args, 'quit\n');
      expect(missing.code).toBe(2);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toBe('wms simulate: OPC UA needs opcua-simulator.cjs beside the bundle (the build writes it there; copy it with wms.cjs)\n');
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });
});
