import { execFile } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PtyPair } from './support/plc.ts';
import { BUNDLE } from '../scripts/build.ts';
import { startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';
import { site, unitWithOrder, type Site } from './support/warehouse.ts';

// `wms simulate`: the conveyor simulator from the appliance's own executable, as an
// integrator at the box runs it. The real bundle (built by the global setup) in an
// empty working directory, against a real appliance with a TCP and a serial PLC channel
// (a socat pseudo-terminal pair); what the telegrams did is checked over REST.

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

let wms: TestAppliance;
let cwd: string;
/** A socat pty pair: the appliance opens `host`, the simulator `plc`. */
let ttys: PtyPair;
let tcp: string;

beforeAll(async () => {
  ttys = await PtyPair.open();
  wms = await startTestAppliance({
    plc: {
      channels: [
        { name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0 },
        { name: 'CNV02', transport: 'serial', device: ttys.host },
      ],
    },
  });
  tcp = `127.0.0.1:${wms.app.module('plc').channel('CNV01').address()!.port}`;
  cwd = tempDir('wms-simulate-');
});

afterAll(async () => {
  await wms?.close();
  await ttys?.close();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

/** The environment of the child: ours without any WMS_* setting. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WMS_') && k !== 'NODE_OPTIONS') env[k] = v;
  return env;
}

/** `node dist/wms.cjs simulate …` to its end. */
function simulate(...args: string[]): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BUNDLE, 'simulate', ...args], { cwd, env: childEnv(), timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/** Barcode and locations as on the wire: the barcode zero-padded to 20, coordinates without `/`. */
const wire = (...fields: string[]) => fields.map((f) => (f.includes('/') ? f.replaceAll('/', '') : f.padStart(20, '0'))).join('');

/** One line on stderr naming the program, no stack trace. */
function expectOneLine(stderr: string): void {
  expect(stderr).toMatch(/^wms simulate: [^\n]+\n$/);
  expect(stderr).not.toMatch(/^\s+at /m);
}

describe('wms simulate from the bundle', () => {
  it('--help prints the usage under the name wms simulate, exit code 0', async () => {
    const { code, stdout, stderr } = await simulate('--help');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage: wms simulate \[options\] <command> \[arguments\]$/m);
    expect(stdout).toContain('run-tu BARCODE START');
    expect(stdout).toContain('wms simulate --tcp 127.0.0.1:5020 run-tu 4711 CONV/0001/0001/0000/0000');
    expect(stdout).toMatch(/^Exit code: 0 .*; 1 .*\n.*; 2 bad arguments/m);
    expect(stdout).not.toContain('npm run');
  });

  it("synq over TCP: prints the SYNQ sent and the appliance's SYNC, exit code 0", async () => {
    const { code, stdout, stderr } = await simulate('--tcp', tcp, '--name', 'CNV01', '--timeout', '10000', 'synq');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^connected \(.*127\.0\.0\.1.*\)$/m);
    expect(stdout).toMatch(/^>> ###00160CNV01MFC__00001SYNQ\d{14}\*{119}$/m);
    expect(stdout).toMatch(/^<< ###00160MFC__CNV01\d{5}SYNC\d{14}\*+ {3}\(SYNC seq \d+, [\d.]+ ms\)$/m);
  });

  describe('against a seeded route INFEED → C1 → C2 → STOCK', () => {
    let s: Site;
    beforeAll(async () => {
      s = await site(wms, 'SIMT');
    });

    it('req: the RES_ names the next hop, exit code 0', async () => {
      await unitWithOrder(wms, 'SIM-REQ', s.INFEED, s.STOCK);
      const { code, stdout, stderr } = await simulate('--tcp', tcp, '--timeout', '10000', 'req', 'SIM-REQ', s.INFEED);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toMatch(new RegExp(`^>> ###00160CNV01MFC__00001REQ_${wire('SIM-REQ', s.INFEED)}\\*{20}`, 'm'));
      expect(stdout).toMatch(new RegExp(`^<< ###00160MFC__CNV01\\d{5}RES_${wire('SIM-REQ', s.INFEED)}${wire(s.C1)}.* {3}\\(RES_ seq \\d+`, 'm'));
      expect(stdout).toContain(`RES_: target ${s.C1}, group none, code `);
    });

    it('run-tu walks the unit hop by hop until the RES_ without target; REST finds it at STOCK, its order FINISHED', async () => {
      const order = await unitWithOrder(wms, 'SIM-RUN', s.INFEED, s.STOCK);
      const { code, stdout, stderr } = await simulate('--tcp', tcp, '--timeout', '10000', 'run-tu', 'SIM-RUN', s.INFEED);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout.match(/^>> .{23}REQ_/gm)).toHaveLength(4);
      expect(stdout).toMatch(new RegExp(`^TU SIM-RUN at ${s.INFEED} → ${s.C1} \\(RES_ after [\\d.]+ ms\\)$`, 'm'));
      expect(stdout).toContain(`TU SIM-RUN at ${s.STOCK} → no target`);
      expect(stdout).toContain(`TU SIM-RUN visited ${s.INFEED} → ${s.C1} → ${s.C2} → ${s.STOCK}; done`);
      expect((await wms.get('/v1/transport-units?bk=SIM-RUN')).body.actualLocation).toBe(s.STOCK);
      expect((await wms.get(`/v1/transport-orders/${order}`)).body.state).toBe('FINISHED');
    });
  });

  it('synq over a serial line (socat pty pair): the serial addon loads from beside the bundle', async () => {
    const { code, stdout, stderr } = await simulate('--serial', ttys.plc, '--name', 'CNV02', '--timeout', '10000', 'synq');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^connected \(serial .*ttyPLC @ 38400 8N1\)$/m);
    expect(stdout).toMatch(/^<< ###00160MFC__CNV02\d{5}SYNC/m);
  });

  it('an exchange that fails exits 1 with one line: nobody listening', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const { code, stderr } = await simulate('--tcp', `127.0.0.1:${closed}`, 'synq');
    expect(code).toBe(1);
    expectOneLine(stderr);
    expect(stderr).toMatch(/ECONNREFUSED/);
  });

  it.each([
    { why: 'no command', args: ['--tcp', '127.0.0.1:5020'], message: /no command given/ },
    { why: 'an unknown command', args: ['--tcp', '127.0.0.1:5020', 'fly'], message: /unknown command "fly"/ },
    { why: "an unknown option (the appliance's own flags mean nothing here)", args: ['--port', '8080', 'synq'], message: /Unknown option '--port'/ },
    { why: 'an option without its value', args: ['synq', '--tcp'], message: /--tcp/ },
    { why: 'no connection option', args: ['synq'], message: /give exactly one of --tcp, --listen, --serial/ },
    { why: 'a wrong number of arguments', args: ['--tcp', '127.0.0.1:5020', 'run-tu', '4711'], message: /usage: run-tu BARCODE START/ },
    { why: 'a location of three parts', args: ['--tcp', '127.0.0.1:5020', 'req', '4711', 'CONV/0001/0001'], message: /location must have 5 parts/ },
    { why: 'a bitmap of two characters', args: ['--tcp', '127.0.0.1:5020', 'locu', 'CONV/0001/0002/0000/0000', '12'], message: /must be 8 characters/ },
    { why: 'a PLC name of eight characters', args: ['--tcp', '127.0.0.1:5020', '--name', 'CONVEYOR', 'synq'], message: /name is longer than 5 characters/ },
    {
      why: 'a framing that does not exist',
      args: ['--tcp', '127.0.0.1:5020', '--framing', 'morse', 'synq'],
      message: /--framing must be line, fixed or stxetx/,
    },
  ])('bad arguments ($why): exit code 2, one line, nothing sent', async ({ args, message }) => {
    const { code, stdout, stderr } = await simulate(...args);
    expect(code).toBe(2);
    expectOneLine(stderr);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
  });

  it('leaves the working directory as it found it (no data directory, no unpacked addon)', () => {
    expect(readdirSync(cwd)).toEqual([]);
  });
});
