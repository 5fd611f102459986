import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/appliance.ts';
import { expectUnitChecksPass, mode, newRoot, removeRoots, spawnRun, step, type Exit } from './support/install.ts';
import { buildAsTheReadmeSays, expectEntryIndex, expectQuietBuild, expectReadmeSize, expectTokenAndWrite, type Build } from './support/executable.ts';
import { freePort, memory, tcpSlave, type Slave } from './support/modbus-slave.ts';
import { jetstreamManager, startNats, streamMessages, type NatsServer } from './support/nats.ts';
import { startOpcuaServer, type TestOpcuaServer } from './support/opcua-server.ts';
import { until } from './support/warehouse.ts';

// The single executable: built from this tree, copied alone into an empty folder (no
// node_modules, no Node.js on the PATH) and used like an installer would. Its
// wms.config.json names two signal channels, OPC UA and Modbus TCP, to real servers in
// this process: the binary carries both drivers (the OPC UA one as an asset of its own),
// and a hub link to a real nats-server (the NATS client is an asset of its own too).

const PASSWORD = 'binary-test-password';
let build: Build;
let folder: string;
let child: ChildProcess;
let url: string;
/** The executable's log up to "appliance started". */
let startLog = '';
let exitCode: Promise<number | null>;
let opcua: TestOpcuaServer;
let slave: Slave;
let nats: NatsServer;
const registers = memory();
const UA_LOCATION = 'BINU/0001/0001/0000/0000';
const MB_LOCATION = 'BINM/0001/0001/0000/0000';

beforeAll(async () => {
  build = await buildAsTheReadmeSays();
  folder = tempDir('wms-binary-');
  copyFileSync(build.binary, path.join(folder, 'wms'));
  opcua = await startOpcuaServer();
  nats = await startNats();
  const modbusPort = await freePort();
  slave = await tcpSlave(registers, modbusPort);
  mkdirSync(path.join(folder, 'data'));
  const signals = [
    {
      name: 'UA1',
      protocol: 'opcua',
      endpoint: opcua.endpoint,
      securityMode: 'None',
      samplingMs: 20,
      points: [{ kind: 'plcState', location: UA_LOCATION, node: 'ns=1;s=Conv.C1.Error' }],
    },
    {
      name: 'MB1',
      protocol: 'modbus-tcp',
      host: '127.0.0.1',
      port: modbusPort,
      unitId: 1,
      pollMs: 20,
      points: [{ kind: 'plcState', location: MB_LOCATION, address: 'hr:100' }],
    },
  ];
  writeFileSync(path.join(folder, 'data', 'wms.config.json'), JSON.stringify({ plc: { signals }, federation: { site: 'BIN', nats: { servers: [nats.url] } } }));
  child = spawn('./wms', ['--port', '0', '--host', '127.0.0.1'], {
    cwd: folder,
    env: { PATH: '/usr/bin:/bin', WMS_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exitCode = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*appliance started/.exec(out);
      if (match) {
        startLog = out;
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`dist/wms exited with ${code}:\n${out}`)));
  });
  // Two builds of the executable (x64, arm64) and a start: minutes beside a second suite.
}, 360_000);

afterAll(async () => {
  removeRoots();
  if (child?.exitCode === null) child.kill('SIGKILL');
  await opcua?.close();
  await slave?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('npm run build:bin', () => {
  it('prints what it built and nothing else', () => expectQuietBuild(build, 'dist/wms'));

  it('builds the size the README gives', () => expectReadmeSize(build, 'dist/wms', 'linux-x64'));
});

describe('dist/wms from an empty folder', () => {
  it('holds nothing but the executable before it starts', () => {
    expect(existsSync(path.join(folder, 'node_modules'))).toBe(false);
  });

  it('serves the public entry index', () => expectEntryIndex(url));

  it("starts with the conveyor thread's young generation named: the executable carries the option (no warning)", () => {
    expect(startLog).toContain('appliance started');
    expect(startLog).not.toContain('young generation');
  });

  it('issues a token and keeps what is written', () => expectTokenAndWrite(url, PASSWORD, 'BINA', 'BIN-1'));

  it('keeps its database and unpacked SQLite addon in ./data', () => {
    expect(existsSync(path.join(folder, 'data', 'wms.sqlite'))).toBe(true);
    expect(readdirSync(path.join(folder, 'data', 'native')).some((f) => f.endsWith('.node'))).toBe(true);
  });

  it('serves the HMI from the executable: a browser at / is sent to /hmi/, the page names its files, they come compressed', async () => {
    const root = await fetch(`${url}/`, { headers: { Accept: 'text/html' }, redirect: 'manual' });
    expect(root.status).toBe(302);
    const page = await fetch(`${url}/hmi/`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const script = /src="\.?\/?(app-[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script, 'the page names its script').toBeDefined();
    const asset = await fetch(`${url}/hmi/${script}`, { headers: { 'Accept-Encoding': 'br' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });

  it('reads conveyor signals over OPC UA and Modbus TCP: an error word sets the location’s plcState', async () => {
    const auth = await login();
    for (const locationId of [UA_LOCATION, MB_LOCATION]) {
      const created = await fetch(`${url}/v1/locations`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ locationId, locationGroupName: 'WAREHOUSE' }),
      });
      expect(created.status).toBe(201);
    }
    const channel = async (name: string) => (await (await fetch(`${url}/v1/plc-channels/${name}`, { headers: auth })).json()) as { state: string };
    await until(async () => (await channel('UA1')).state === 'ONLINE' && (await channel('MB1')).state === 'ONLINE', 'both channels ONLINE', 30_000);
    opcua.set('Conv.C1.Error', 21);
    registers.holding.set(100, 34);
    const plcState = async (locationId: string) => {
      const [area, aisle, x, y, z] = locationId.split('/');
      const reply = await fetch(`${url}/v1/locations?area=${area}&aisle=${aisle}&x=${x}&y=${y}&z=${z}`, { headers: auth });
      return ((await reply.json()) as Array<{ plcState: number }>)[0]?.plcState;
    };
    await until(async () => (await plcState(UA_LOCATION)) === 21 && (await plcState(MB_LOCATION)) === 34, 'plcState 21 and 34');
  }, 60_000);

  it("exports its events to the hub link's stream on a real nats-server", async () => {
    const auth = await login();
    const status = async () =>
      (await (await fetch(`${url}/v1/federation`, { headers: auth })).json()) as { state: string; cursor: number; newestEventId: number };
    await until(
      async () => {
        const s = await status();
        return s.state === 'CONNECTED' && s.cursor > 0 && s.cursor === s.newestEventId;
      },
      'the export caught up',
      30_000,
    );
    const nc = await nats.connect();
    try {
      const messages = await streamMessages(await jetstreamManager(nc), 'WMS_BIN');
      expect(messages.at(-1)!.json.id).toBe((await status()).newestEventId);
      expect(messages[0]!.msgId).toBe(`BIN-${messages[0]!.json.id}`);
    } finally {
      await nc.close();
    }
  }, 60_000);

  it('ships the conveyor simulator (wms simulate), OPC UA server included', () => {
    const usage = execFileSync('./wms', ['simulate', '--help'], { cwd: folder, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
    expect(usage).toMatch(/^Usage: wms simulate /);
    const served = execFileSync('./wms', ['simulate', '--protocol', 'opcua', '--listen', '127.0.0.1:0', '--locations', 'SIMU/0001/0001/0000/0000', 'serve'], {
      cwd: folder,
      env: { PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
      input: 'quit\n',
      timeout: 60_000,
    });
    expect(served).toMatch(/^OPC UA server on 127\.0\.0\.1:\d+$/m);
  });

  it('stops cleanly on SIGTERM', async () => {
    child.kill('SIGTERM');
    expect(await exitCode).toBe(0);
  });
});

async function login(): Promise<Record<string, string>> {
  const reply = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=password&username=admin&password=${PASSWORD}`,
  });
  const { access_token: token } = (await reply.json()) as { access_token: string };
  return { Authorization: `Bearer ${token}` };
}

describe('install-service from the single executable', () => {
  let binary: string;
  let root: string;
  let first: Exit;

  beforeAll(async () => {
    binary = build.binary;
    root = newRoot();
    first = await spawnRun(binary, ['install-service', '--root', root], root);
  });

  it('copies itself to the executable path, mode 0755, byte for byte', () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const installed = path.join(root, 'usr/local/bin/wms');
    expect(mode(installed)).toBe(0o755);
    expect(execFileSync('cmp', [binary, installed], { encoding: 'utf8' })).toBe('');
    expect(step(first.stdout, 'binary')).toMatch(/\/usr\/local\/bin\/wms: copied from .*\(\d+ MB, mode 0755\)/);
  });

  it('the unit with the real executable passes the checks docs/install.md gives', () => {
    expectUnitChecksPass(root);
  });

  it('the installed copy, run again, finds itself in place and changes nothing', async () => {
    const installed = path.join(root, 'usr/local/bin/wms');
    const before = statSync(installed);
    const again = await spawnRun(installed, ['install-service', '--root', root], root);
    expect(again.code).toBe(0);
    expect(step(again.stdout, 'binary')).toMatch(/already this executable, unchanged/);
    expect(step(again.stdout, 'unit')).toMatch(/unchanged/);
    expect(statSync(installed).ino).toBe(before.ino);
  });

  it('the installed copy answers --version with its commit', async () => {
    const exit = await spawnRun(path.join(root, 'usr/local/bin/wms'), ['--version'], root);
    expect(exit.stdout).toMatch(/^wms \S+ \(commit [0-9a-f]{7,}(-dirty)?, built \d{4}-\d{2}-\d{2}\)\n$/);
  });
});
