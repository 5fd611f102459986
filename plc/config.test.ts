import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE } from '../scripts/build.ts';
import { CONFIG_FILE_NAME, loadConfig } from '../src/config.ts';
import { tempDir } from '../test/support/appliance.ts';
import { configError } from '../test/support/config.ts';
import { Cleanup, PtyPair, RawClient, waitFor } from '../test/support/plc.ts';

// The `plc` section of the configuration (plc/config.ts): defaults, the ways to set
// it, and the one-line error naming the key of a bad channel — also as the real
// executable reports it (exit code 2), and the executable speaking OSIP over TCP and
// over a serial line (the bundled serialport addon).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

function dataDir(): string {
  const dir = tempDir('wms-plc-config-');
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const load = (channels: unknown, extra: Record<string, string> = {}) =>
  loadConfig({ WMS_DATA_DIR: dataDir(), WMS_PLC_CHANNELS: JSON.stringify(channels), ...extra });

describe('plc config', () => {
  it('gives a tcp-server channel every default of docs/plc.md', () => {
    const { config } = load([{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 5020 }]);
    expect(config.plc).toEqual({
      hostName: 'MFC__',
      timeZone: 'UTC',
      lateAfterMs: 150,
      telegramLog: { keepDays: 7, maxRows: 5_000_000 },
      channels: [
        {
          name: 'CNV01',
          enabled: true,
          transport: 'tcp-server',
          host: '127.0.0.1',
          port: 5020,
          baudRate: 38_400,
          framing: 'line',
          terminator: 'CRLF',
          bcc: false,
          telegramLength: 160,
          replySeq: 'plus-one',
          idleTimeoutMs: 60_000,
          staleTimeoutMs: 300_000,
          duplicateWindowMs: 30_000,
          unsolicited: true,
          errorRepliesPerSecond: 10,
          locationGroups: [],
          reqExtension: false,
          resReasonCodes: false,
          updx: false,
          autoCreateTu: false,
          autoCreateTuType: 'EURO',
          locationAddressing: 'coordinateThenPlcCode',
        },
      ],
    });
    expect(config.plc.channels[0]!.noReadLocation).toBeUndefined();
  });

  it('listens on every interface by default; a serial channel needs a device, a tcp-client a host', () => {
    const { config } = load([
      { name: 'CNV01', port: 5020 },
      { name: 'CNV02', transport: 'tcp-client', host: 'plc2.local', port: 2000 },
      { name: 'RS485', transport: 'serial', device: '/dev/ttyUSB0', baudRate: 115_200, framing: 'stxetx', bcc: true, unsolicited: false },
    ]);
    expect(config.plc.channels.map((c) => [c.name, c.transport, c.host, c.port, c.device])).toEqual([
      ['CNV01', 'tcp-server', '0.0.0.0', 5020, undefined],
      ['CNV02', 'tcp-client', 'plc2.local', 2000, undefined],
      ['RS485', 'serial', undefined, undefined, '/dev/ttyUSB0'],
    ]);
  });

  it('is read from the config file as well', () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, CONFIG_FILE_NAME), JSON.stringify({ plc: { hostName: 'HOST1', channels: [{ name: 'CNV01', port: 5020 }] } }));
    const { config } = loadConfig({ WMS_DATA_DIR: dir });
    expect(config.plc.hostName).toBe('HOST1');
    expect(config.plc.channels[0]!.name).toBe('CNV01');
    const message = configError(() => {
      writeFileSync(path.join(dir, CONFIG_FILE_NAME), JSON.stringify({ plc: { channels: [{ name: 'CNV01', port: 'x' }] } }));
      loadConfig({ WMS_DATA_DIR: dir });
    });
    expect(message).toContain(`invalid config plc.channels.0.port (from ${path.join(dir, CONFIG_FILE_NAME)})`);
  });

  it('refuses a bad channel with one line naming the key', () => {
    const cases: [unknown, string][] = [
      [[{ name: 'CNV01' }], 'plc.channels.0.port (from WMS_PLC_CHANNELS): required for transport tcp-server'],
      [[{ name: 'CNV01', transport: 'serial' }], 'plc.channels.0.device (from WMS_PLC_CHANNELS): required for transport serial'],
      [[{ name: 'CNV01', transport: 'tcp-client', port: 1 }], 'plc.channels.0.host (from WMS_PLC_CHANNELS): required'],
      [[{ name: 'CNV01', transport: 'tcp-client', host: 'plc', port: 0 }], 'plc.channels.0.port (from WMS_PLC_CHANNELS)'],
      [[{ name: 'CNV1', port: 1 }], 'plc.channels.0.name (from WMS_PLC_CHANNELS): exactly 5 printable ASCII characters'],
      [
        [
          { name: 'CNV01', port: 1 },
          { name: 'CNV01', port: 2 },
        ],
        'plc.channels.1.name (from WMS_PLC_CHANNELS): the same name as channel 0',
      ],
      [
        [
          { name: 'CNV01', port: 1 },
          { name: 'CNV02', port: 1 },
        ],
        'plc.channels.1.port (from WMS_PLC_CHANNELS): listens on the same address and port',
      ],
      [
        [
          { name: 'CNV01', transport: 'serial', device: '/dev/ttyS0' },
          { name: 'CNV02', transport: 'serial', device: '/dev/ttyS0' },
        ],
        'plc.channels.1.device',
      ],
      [[{ name: 'index', port: 1 }], 'plc.channels.0.name (from WMS_PLC_CHANNELS): index is the name of the module index'],
      [[{ name: 'MFC__', port: 1 }], "plc.channels.0.name (from WMS_PLC_CHANNELS): is the host's own name"],
      [[{ name: 'CNV01', port: 70_000 }], 'plc.channels.0.port'],
      [[{ name: 'CNV01', port: 1, prot: 2 }], 'plc.channels.0.prot (from WMS_PLC_CHANNELS): unknown key'],
      [[{ name: 'CNV01', port: 1, transport: 'udp' }], 'plc.channels.0.transport'],
      [[{ name: 'CNV01', port: 1, framing: 'slip' }], 'plc.channels.0.framing'],
      [[{ name: 'CNV01', port: 1, terminator: '\r\n' }], 'plc.channels.0.terminator'],
      [[{ name: 'CNV01', port: 1, replySeq: 'minus-one' }], 'plc.channels.0.replySeq'],
      [[{ name: 'CNV01', port: 1, telegramLength: 100 }], 'plc.channels.0.telegramLength'],
      [
        [{ name: 'CNV01', port: 1, idleTimeoutMs: 1000, staleTimeoutMs: 1000 }],
        'plc.channels.0.staleTimeoutMs (from WMS_PLC_CHANNELS): must be longer than idleTimeoutMs',
      ],
      [[{ name: 'CNV01', port: 1, locationAddressing: 'name' }], 'plc.channels.0.locationAddressing'],
      [[{ name: 'CNV01', port: 1, noReadLocation: 'NOWHERE' }], 'plc.channels.0.noReadLocation'],
      [[{ name: 'CNV01', port: 1, errorRepliesPerSecond: -1 }], 'plc.channels.0.errorRepliesPerSecond'],
      [[{ name: 'CNV01', port: 1, framing: 'fixed', terminator: 'LF' }], 'plc.channels.0.terminator (from WMS_PLC_CHANNELS): applies to line framing only'],
      [{ name: 'CNV01', port: 1 }, 'plc.channels (from WMS_PLC_CHANNELS)'],
      [
        [{ name: 'CNV01', port: 1, allowFrom: ['10.0.0.300'] }],
        'plc.channels.0.allowFrom.0 (from WMS_PLC_CHANNELS): [10.0.0.300] is not an IPv4 or IPv6 address',
      ],
      [
        [{ name: 'CNV01', port: 1, allowFrom: ['10.0.0.0/33'] }],
        'plc.channels.0.allowFrom.0 (from WMS_PLC_CHANNELS): [10.0.0.0/33]: the prefix length must be 0-32',
      ],
      [[{ name: 'CNV01', port: 1, allowFrom: [] }], 'plc.channels.0.allowFrom (from WMS_PLC_CHANNELS): name at least one address'],
      [
        [{ name: 'CNV01', transport: 'serial', device: '/dev/ttyS0', allowFrom: ['10.0.0.1'] }],
        'plc.channels.0.allowFrom (from WMS_PLC_CHANNELS): applies to transport tcp-server only',
      ],
    ];
    for (const [channels, named] of cases) {
      expect(
        configError(() => load(channels)),
        JSON.stringify(channels),
      ).toContain(`invalid config ${named}`);
    }
    expect(configError(() => load([], { WMS_PLC_HOST_NAME: 'TOO_LONG' }))).toContain('invalid config plc.hostName (from WMS_PLC_HOST_NAME)');
    expect(configError(() => load([], { WMS_PLC_TIME_ZONE: 'Mars/Olympus' }))).toContain(
      'invalid config plc.timeZone (from WMS_PLC_TIME_ZONE): not a known IANA time zone',
    );
  });

  it("takes the site's answer budget (plc.lateAfterMs) from 1 ms to 10 s, in whole milliseconds", () => {
    expect(load([], { WMS_PLC_LATE_AFTER_MS: '200' }).config.plc.lateAfterMs).toBe(200);
    expect(load([], { WMS_PLC_LATE_AFTER_MS: '1' }).config.plc.lateAfterMs).toBe(1);
    expect(load([], { WMS_PLC_LATE_AFTER_MS: '10000' }).config.plc.lateAfterMs).toBe(10_000);
    const refused: [string, string][] = [
      ['0', 'at least 1 ms'],
      ['10001', 'at most 10000 ms'],
      ['2.5', 'whole milliseconds'],
      ['soon', 'Invalid input: expected number'],
    ];
    for (const [text, why] of refused) {
      expect(
        configError(() => load([], { WMS_PLC_LATE_AFTER_MS: text })),
        text,
      ).toContain(`invalid config plc.lateAfterMs (from WMS_PLC_LATE_AFTER_MS): ${why}`);
    }
  });
});

interface Started {
  exited: Promise<{ code: number | null; stderr: string }>;
  stdout: () => string;
  kill: () => void;
}

function runBundle(env: Record<string, string>): Started {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WMS_') && k !== 'NODE_OPTIONS') base[k] = v;
  const child = spawn(process.execPath, [BUNDLE], {
    cwd: dataDir(),
    env: { ...base, WMS_DATA_DIR: dataDir(), WMS_PORT: '0', WMS_HOST: '127.0.0.1', WMS_ADMIN_PASSWORD: 'a-long-enough-password', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  cleanup.add(async () => {
    kill();
    await exited;
  });
  return { exited, stdout: () => stdout, kill };
}

const logLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

describe('the executable', () => {
  it('stops with exit code 2 and one line naming the key of a bad channel', async () => {
    const run = runBundle({ WMS_PLC_CHANNELS: '[{"name":"CNV01","transport":"tcp-server"}]' });
    const { code, stderr } = await run.exited;
    expect(code).toBe(2);
    expect(stderr).toBe('wms: invalid config plc.channels.0.port (from WMS_PLC_CHANNELS): required for transport tcp-server\n');
  });

  it('answers SYNQ with SYNC on a tcp-server channel', async () => {
    const run = runBundle({ WMS_PLC_CHANNELS: '[{"name":"CNV01","host":"127.0.0.1","port":0}]' });
    await waitFor(() => logLines(run.stdout()).some((l) => l.msg === 'appliance started'), 20_000, 'the appliance to start');
    const listening = logLines(run.stdout()).find((l) => l.msg === 'listening for the PLC')!;
    const port = Number(/:(\d+)$/.exec(listening.address)![1]);
    const raw = await RawClient.connect(port);
    cleanup.add(() => raw.close());
    await raw.write('###00160CNV01MFC__00007SYNQ20250312081459' + '*'.repeat(119) + '\r\n');
    const [sync] = await raw.telegrams(1);
    expect(sync).toMatchObject({ type: 'SYNC', sender: 'MFC__', receiver: 'CNV01', seq: 8 });
  });

  it('answers SYNQ with SYNC on a serial channel (the bundled serial addon)', async () => {
    const pty = await PtyPair.open();
    cleanup.add(() => pty.close());
    const run = runBundle({ WMS_PLC_CHANNELS: JSON.stringify([{ name: 'CNV01', transport: 'serial', device: pty.host }]) });
    await waitFor(() => logLines(run.stdout()).some((l) => l.msg === 'serial device open'), 20_000, 'the serial device to open');
    const { SerialPort } = await import('serialport');
    const plc = new SerialPort({ path: pty.plc, baudRate: 38_400, autoOpen: false });
    await new Promise<void>((resolve, reject) => plc.open((err) => (err ? reject(err) : resolve())));
    cleanup.add(() => new Promise<void>((resolve) => (plc.isOpen ? plc.close(() => resolve()) : resolve())));
    let received = '';
    plc.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    plc.write('###00160CNV01MFC__00001SYNQ20250312081459' + '*'.repeat(119) + '\r\n');
    await waitFor(() => received.endsWith('\r\n'), 10_000, 'the SYNC');
    expect(received).toMatch(/^###00160MFC__CNV0100002SYNC\d{14}\*{119}\r\n$/);
  });
});
