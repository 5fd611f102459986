import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIG_FILE_NAME, configSchema, envName, loadConfig, parseFlags, redactedConfig } from '../src/config.ts';
import { tempDir } from './support/appliance.ts';
import { configError } from './support/config.ts';

// Unit tests of the configuration layers: defaults < <dataDir>/wms.config.json <
// WMS_* environment < command-line flags (< overrides of embedders and tests).

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh, empty data directory. */
function dataDir(): string {
  const dir = tempDir('wms-config-');
  dirs.push(dir);
  return dir;
}

/** A data directory holding `wms.config.json` with the given content (an object is written as JSON). */
function dataDirWithFile(content: unknown): string {
  const dir = dataDir();
  writeFileSync(path.join(dir, CONFIG_FILE_NAME), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

/** Every settable key, by dotted path, as the schema declares them. */
function schemaKeys(): string[] {
  const json = z.toJSONSchema(configSchema, { io: 'input' }) as {
    properties: Record<string, { properties: Record<string, unknown> }>;
  };
  return Object.entries(json.properties).flatMap(([section, s]) => Object.keys(s.properties).map((k) => `${section}.${k}`));
}

describe('envName', () => {
  it('turns a dotted camel-case key into WMS_<SECTION>_<KEY>', () => {
    expect(envName('server.port')).toBe('WMS_SERVER_PORT');
    expect(envName('server.bodyLimitBytes')).toBe('WMS_SERVER_BODY_LIMIT_BYTES');
    expect(envName('server.corsOrigins')).toBe('WMS_SERVER_CORS_ORIGINS');
    expect(envName('storage.dataDir')).toBe('WMS_STORAGE_DATA_DIR');
    expect(envName('auth.tokenTtlSeconds')).toBe('WMS_AUTH_TOKEN_TTL_SECONDS');
    expect(envName('api.messageKeys')).toBe('WMS_API_MESSAGE_KEYS');
    expect(envName('log.level')).toBe('WMS_LOG_LEVEL');
    expect(envName('plc.hostName')).toBe('WMS_PLC_HOST_NAME');
    expect(envName('plc.channels')).toBe('WMS_PLC_CHANNELS');
  });
});

describe('parseFlags', () => {
  it('takes no flags as no action and no values', () => {
    expect(parseFlags([])).toEqual({ printConfig: false, resetAdmin: false, help: false, version: false, values: {} });
  });

  it('reads --port, --host and --data-dir in the "--flag value" form', () => {
    expect(parseFlags(['--port', '1', '--host', '127.0.0.1', '--data-dir', '/srv/wms']).values).toEqual({
      'server.port': '1',
      'server.host': '127.0.0.1',
      'storage.dataDir': '/srv/wms',
    });
  });

  it('reads --port, --host and --data-dir in the "--flag=value" form', () => {
    expect(parseFlags(['--port=1', '--host=::1', '--data-dir=/srv/a=b']).values).toEqual({
      'server.port': '1',
      'server.host': '::1',
      'storage.dataDir': '/srv/a=b',
    });
  });

  it('lets a later flag replace an earlier one', () => {
    expect(parseFlags(['--port', '1', '--port=2']).values).toEqual({ 'server.port': '2' });
  });

  it('recognises the action flags and their short forms', () => {
    expect(parseFlags(['--print-config'])).toMatchObject({ printConfig: true, help: false, version: false });
    expect(parseFlags(['--help']).help).toBe(true);
    expect(parseFlags(['-h']).help).toBe(true);
    expect(parseFlags(['--version']).version).toBe(true);
    expect(parseFlags(['-v']).version).toBe(true);
    expect(parseFlags(['--reset-admin']).resetAdmin).toBe(true);
    expect(parseFlags(['--port', '0', '--print-config'])).toEqual({
      printConfig: true,
      resetAdmin: false,
      help: false,
      version: false,
      values: { 'server.port': '0' },
    });
  });

  it('refuses an unknown flag, naming it', () => {
    expect(configError(() => parseFlags(['--prot', '80']))).toContain('unknown flag --prot');
    expect(configError(() => parseFlags(['--prot=80']))).toContain('unknown flag --prot=80');
    expect(configError(() => parseFlags(['serve']))).toContain('unknown flag serve');
  });

  it('refuses a value flag without its value', () => {
    expect(configError(() => parseFlags(['--port']))).toContain('--port needs a value');
    expect(configError(() => parseFlags(['--port=']))).toContain('--port needs a value');
    expect(configError(() => parseFlags(['--data-dir', '']))).toContain('--data-dir needs a value');
  });
});

describe('loadConfig: defaults', () => {
  it('uses the documented defaults when nothing is set', () => {
    const dir = dataDir();
    const { config, file, warnings } = loadConfig({ WMS_DATA_DIR: dir });
    expect(config).toEqual({
      server: {
        host: '0.0.0.0',
        port: 8080,
        bodyLimitBytes: 1024 * 1024,
        corsOrigins: ['*'],
        requestTimeoutMs: 30_000,
        metricsPublic: false,
        httpThread: true,
        conveyorNice: -10,
      },
      storage: { dataDir: dir, file: 'wms.sqlite', busyTimeoutMs: 5000, backupsToKeep: 5, flush: 'commit' },
      auth: { tokenTtlSeconds: 3600, passwordHashCost: 16384, issuer: 'wms-appliance', lockoutMinutes: 15, loginAttemptsPerMinute: 10 },
      api: { messageKeys: 'dotted' },
      tasks: { types: ['MANUAL', 'USERTASK'] },
      inventory: { oneProductPerLoadUnit: false },
      users: { imageMaxBytes: 256 * 1024 },
      log: { level: 'info' },
      events: { keepDays: 30, maxRows: 10_000_000 },
      alarms: { channelDownSeconds: 10, minFreeDiskMb: 1024 },
      plc: { hostName: 'MFC__', timeZone: 'UTC', lateAfterMs: 150, telegramLog: { keepDays: 7, maxRows: 5_000_000 }, channels: [] },
      federation: {
        nats: { servers: ['nats://127.0.0.1:4222'] },
        stream: { maxAgeDays: 7, maxBytes: 2 * 1024 * 1024 * 1024, duplicateWindowSeconds: 120, replicas: 1 },
        maxInFlight: 256,
        batch: 500,
        maxLagSeconds: 60,
        commands: true,
      },
      ha: { nats: { servers: ['nats://127.0.0.1:4222'] }, leaseTtlMs: 5000, maxLagMs: 1000 },
    });
    expect(config.federation.site).toBeUndefined();
    expect(config.ha.pair).toBeUndefined();
    expect(config.auth.adminPassword).toBeUndefined();
    expect(config.server.publicUrl).toBeUndefined();
    expect(file).toEqual({ path: path.join(dir, CONFIG_FILE_NAME), found: false });
    expect(warnings).toEqual([]);
  });

  it('defaults the data directory to ./data and looks for the config file there', () => {
    const { config, file } = loadConfig({});
    expect(config.storage.dataDir).toBe('./data');
    expect(file.path).toBe(path.join('./data', CONFIG_FILE_NAME));
  });
});

describe('loadConfig: the config file <dataDir>/wms.config.json', () => {
  it('reads values from the file and keeps defaults for the rest', () => {
    const dir = dataDirWithFile({
      server: { port: 9000, corsOrigins: ['http://hmi.local'] },
      auth: { issuer: 'box-7' },
      log: { level: 'warn' },
    });
    const { config, file } = loadConfig({ WMS_DATA_DIR: dir });
    expect(file).toEqual({ path: path.join(dir, CONFIG_FILE_NAME), found: true });
    expect(config.server).toMatchObject({ port: 9000, host: '0.0.0.0', corsOrigins: ['http://hmi.local'] });
    expect(config.auth.issuer).toBe('box-7');
    expect(config.log.level).toBe('warn');
    expect(config.storage).toMatchObject({ dataDir: dir, file: 'wms.sqlite' });
  });

  it('is looked for in the directory from --data-dir, WMS_STORAGE_DATA_DIR or WMS_DATA_DIR, in that order', () => {
    const viaFlag = dataDirWithFile({ server: { port: 1001 } });
    const viaLong = dataDirWithFile({ server: { port: 1002 } });
    const viaShort = dataDirWithFile({ server: { port: 1003 } });
    const env = { WMS_STORAGE_DATA_DIR: viaLong, WMS_DATA_DIR: viaShort };
    expect(loadConfig({ WMS_DATA_DIR: viaShort }).config.server.port).toBe(1003);
    expect(loadConfig(env).config.server.port).toBe(1002);
    expect(loadConfig(env).config.storage.dataDir).toBe(viaLong);
    const flagged = loadConfig(env, parseFlags(['--data-dir', viaFlag]));
    expect(flagged.config.server.port).toBe(1001);
    expect(flagged.config.storage.dataDir).toBe(viaFlag);
  });

  it('refuses a file that is not JSON, naming the file', () => {
    const dir = dataDirWithFile('{ "server": { "port": 9000, } }');
    const message = configError(() => loadConfig({ WMS_DATA_DIR: dir }));
    expect(message).toContain(path.join(dir, CONFIG_FILE_NAME));
    expect(message).toContain('not valid JSON');
  });

  it('refuses a file that holds no JSON object', () => {
    const dir = dataDirWithFile('[1, 2]');
    expect(configError(() => loadConfig({ WMS_DATA_DIR: dir }))).toContain('must hold a JSON object');
  });

  it('refuses an unknown key, naming the key and the file', () => {
    const dir = dataDirWithFile({ server: { prot: 9000 } });
    const message = configError(() => loadConfig({ WMS_DATA_DIR: dir }));
    expect(message).toContain(`server.prot (from ${path.join(dir, CONFIG_FILE_NAME)})`);
    expect(message).toContain('unknown');
  });

  it('refuses an unknown section, naming it and the file', () => {
    const dir = dataDirWithFile({ sever: { port: 9000 } });
    const message = configError(() => loadConfig({ WMS_DATA_DIR: dir }));
    expect(message).toContain(`sever (from ${path.join(dir, CONFIG_FILE_NAME)})`);
    expect(message).toContain('unknown');
  });

  it('refuses a section that is not an object', () => {
    const dir = dataDirWithFile({ server: 9000 });
    expect(configError(() => loadConfig({ WMS_DATA_DIR: dir }))).toContain(`server (from ${path.join(dir, CONFIG_FILE_NAME)})`);
  });

  it('refuses storage.dataDir in the file, which lives in that directory', () => {
    const dir = dataDirWithFile({ storage: { dataDir: '/elsewhere' } });
    const message = configError(() => loadConfig({ WMS_DATA_DIR: dir }));
    expect(message).toContain('storage.dataDir');
    expect(message).toContain(path.join(dir, CONFIG_FILE_NAME));
  });

  it('refuses an invalid value, naming the key and the file', () => {
    const dir = dataDirWithFile({ server: { port: '9000' } });
    expect(configError(() => loadConfig({ WMS_DATA_DIR: dir }))).toContain(`server.port (from ${path.join(dir, CONFIG_FILE_NAME)})`);
  });

  it('is only read, never written', () => {
    const content = JSON.stringify({ server: { port: 9000 } });
    const dir = dataDirWithFile(content);
    loadConfig({ WMS_DATA_DIR: dir, WMS_PORT: '9001' }, parseFlags(['--port', '9002']));
    expect(readFileSync(path.join(dir, CONFIG_FILE_NAME), 'utf8')).toBe(content);
  });
});

describe('loadConfig: WMS_* environment variables', () => {
  // One value per key of the schema: the text in the environment and the value it becomes.
  const everyKey: Record<string, { text: (dir: string) => string; value: (dir: string) => unknown }> = {
    'server.host': { text: () => '127.0.0.1', value: () => '127.0.0.1' },
    'server.port': { text: () => '9090', value: () => 9090 },
    'server.publicUrl': { text: () => 'https://wms.example.com/', value: () => 'https://wms.example.com/' },
    'server.bodyLimitBytes': { text: () => '2048', value: () => 2048 },
    'server.corsOrigins': {
      text: () => '["http://hmi.local","http://erp.local"]',
      value: () => ['http://hmi.local', 'http://erp.local'],
    },
    'server.requestTimeoutMs': { text: () => '5000', value: () => 5000 },
    'server.metricsPublic': { text: () => 'true', value: () => true },
    'server.httpThread': { text: () => 'false', value: () => false },
    'server.conveyorNice': { text: () => '-5', value: () => -5 },
    'server.tls': {
      text: () => '{"cert":"/etc/wms/cert.pem","key":"/etc/wms/key.pem"}',
      value: () => ({ cert: '/etc/wms/cert.pem', key: '/etc/wms/key.pem' }),
    },
    'storage.dataDir': { text: (dir) => dir, value: (dir) => dir },
    'storage.file': { text: () => 'site-7.sqlite', value: () => 'site-7.sqlite' },
    'storage.busyTimeoutMs': { text: () => '250', value: () => 250 },
    'storage.backupsToKeep': { text: () => '3', value: () => 3 },
    'storage.flush': { text: () => 'apart', value: () => 'apart' },
    'auth.adminPassword': { text: () => 'long-enough-secret', value: () => 'long-enough-secret' },
    'auth.tokenTtlSeconds': { text: () => '120', value: () => 120 },
    'auth.passwordHashCost': { text: () => '65536', value: () => 65536 },
    'auth.issuer': { text: () => 'box-7', value: () => 'box-7' },
    'auth.lockoutMinutes': { text: () => '0', value: () => 0 },
    'auth.loginAttemptsPerMinute': { text: () => '30', value: () => 30 },
    'api.messageKeys': { text: () => 'upper-case', value: () => 'upper-case' },
    'tasks.types': { text: () => '["PICK","PACK"]', value: () => ['PICK', 'PACK'] },
    'inventory.oneProductPerLoadUnit': { text: () => 'true', value: () => true },
    'users.imageMaxBytes': { text: () => '65536', value: () => 65536 },
    'log.level': { text: () => 'debug', value: () => 'debug' },
    'events.keepDays': { text: () => '90', value: () => 90 },
    'events.maxRows': { text: () => '50000', value: () => 50_000 },
    'alarms.channelDownSeconds': { text: () => '30', value: () => 30 },
    'alarms.minFreeDiskMb': { text: () => '0', value: () => 0 },
    'plc.hostName': { text: () => 'HOST1', value: () => 'HOST1' },
    'plc.telegramLog': { text: () => '{"keepDays":3}', value: () => ({ keepDays: 3, maxRows: 5_000_000 }) },
    'plc.lateAfterMs': { text: () => '200', value: () => 200 },
    'plc.timeZone': { text: () => 'Europe/Berlin', value: () => 'Europe/Berlin' },
    'plc.signals': {
      text: () =>
        '[{"name":"CONV2","protocol":"modbus-tcp","host":"10.0.0.20","points":[{"kind":"plcState","location":"HAL1/CONV/0003/0000/0000","address":"hr:100"}]}]',
      value: () => [
        {
          name: 'CONV2',
          enabled: true,
          protocol: 'modbus-tcp',
          host: '10.0.0.20',
          port: 502,
          unitId: 1,
          pollMs: 100,
          timeoutMs: 1000,
          points: [{ kind: 'plcState', location: 'HAL1/CONV/0003/0000/0000', address: 'hr:100' }],
        },
      ],
    },
    'federation.site': { text: () => 'HALL_1', value: () => 'HALL_1' },
    'federation.nats': {
      text: () => '{"servers":["nats://10.0.0.9:4222"],"token":"t0k"}',
      value: () => ({ servers: ['nats://10.0.0.9:4222'], token: 't0k' }),
    },
    'federation.domain': { text: () => 'hall1', value: () => 'hall1' },
    'federation.stream': {
      text: () => '{"maxAgeDays":3}',
      value: () => ({ maxAgeDays: 3, maxBytes: 2 * 1024 * 1024 * 1024, duplicateWindowSeconds: 120, replicas: 1 }),
    },
    'federation.maxInFlight': { text: () => '64', value: () => 64 },
    'federation.batch': { text: () => '100', value: () => 100 },
    'federation.maxLagSeconds': { text: () => '300', value: () => 300 },
    'federation.commands': { text: () => 'false', value: () => false },
    'ha.pair': { text: () => 'hall1', value: () => 'hall1' },
    'ha.node': { text: () => 'box-a', value: () => 'box-a' },
    'ha.nats': {
      text: () => '{"servers":["nats://10.0.0.11:4222","nats://10.0.0.12:4222"],"user":"wms","password":"pa55"}',
      value: () => ({ servers: ['nats://10.0.0.11:4222', 'nats://10.0.0.12:4222'], user: 'wms', password: 'pa55' }),
    },
    'ha.leaseTtlMs': { text: () => '3000', value: () => 3000 },
    'ha.maxLagMs': { text: () => '250', value: () => 250 },
    'plc.channels': {
      text: () => '[{"name":"CNV01","transport":"tcp-client","host":"10.0.0.5","port":5020}]',
      value: () => [expect.objectContaining({ name: 'CNV01', transport: 'tcp-client', host: '10.0.0.5', port: 5020, framing: 'line' })],
    },
  };

  it('the table below names every key of the schema', () => {
    expect(Object.keys(everyKey).sort()).toEqual(schemaKeys().sort());
  });

  it('overrides every key by its WMS_<SECTION>_<KEY> name', () => {
    const dir = dataDir();
    const env = Object.fromEntries(Object.entries(everyKey).map(([key, v]) => [envName(key), v.text(dir)]));
    const { config, warnings } = loadConfig(env);
    for (const [key, v] of Object.entries(everyKey)) {
      const [section, name] = key.split('.') as [string, string];
      expect((config as unknown as Record<string, Record<string, unknown>>)[section]![name], key).toEqual(v.value(dir));
    }
    expect(warnings).toEqual([]);
  });

  it('reads the short names WMS_PORT, WMS_HOST, WMS_DATA_DIR and WMS_ADMIN_PASSWORD', () => {
    const dir = dataDir();
    const { config, warnings } = loadConfig({
      WMS_PORT: '1234',
      WMS_HOST: '::1',
      WMS_DATA_DIR: dir,
      WMS_ADMIN_PASSWORD: 'short-name-secret',
    });
    expect(config.server.port).toBe(1234);
    expect(config.server.host).toBe('::1');
    expect(config.storage.dataDir).toBe(dir);
    expect(config.auth.adminPassword).toBe('short-name-secret');
    expect(warnings).toEqual([]);
  });

  it('lets the long name win over the short one', () => {
    const longDir = dataDir();
    const shortDir = dataDir();
    const { config } = loadConfig({
      WMS_SERVER_PORT: '1111',
      WMS_PORT: '2222',
      WMS_SERVER_HOST: 'long.local',
      WMS_HOST: 'short.local',
      WMS_STORAGE_DATA_DIR: longDir,
      WMS_DATA_DIR: shortDir,
      WMS_AUTH_ADMIN_PASSWORD: 'the-long-secret',
      WMS_ADMIN_PASSWORD: 'the-short-secret',
    });
    expect(config.server.port).toBe(1111);
    expect(config.server.host).toBe('long.local');
    expect(config.storage.dataDir).toBe(longDir);
    expect(config.auth.adminPassword).toBe('the-long-secret');
  });

  it('ignores the short name when the long one is set, even when the short one is invalid', () => {
    const { config } = loadConfig({ WMS_DATA_DIR: dataDir(), WMS_SERVER_PORT: '81', WMS_PORT: 'abc' });
    expect(config.server.port).toBe(81);
  });

  it('warns about unknown WMS_* variables and ignores other variables', () => {
    const { config, warnings } = loadConfig({
      WMS_DATA_DIR: dataDir(),
      WMS_PROT: '80',
      WMS_SERVER_PORTS: '80',
      PATH: '/usr/bin',
      PORT: '80',
    });
    expect(warnings.sort()).toEqual(['unknown setting WMS_PROT ignored', 'unknown setting WMS_SERVER_PORTS ignored']);
    expect(config.server.port).toBe(8080);
  });

  it('refuses an invalid value, naming the key and the variable', () => {
    const dir = dataDir();
    const cases: [Record<string, string>, string][] = [
      [{ WMS_PORT: 'abc' }, 'server.port (from WMS_PORT)'],
      [{ WMS_SERVER_PORT: '65536' }, 'server.port (from WMS_SERVER_PORT)'],
      [{ WMS_PORT: '80.5' }, 'server.port (from WMS_PORT)'],
      [{ WMS_PORT: '' }, 'server.port (from WMS_PORT)'],
      [{ WMS_HOST: '' }, 'server.host (from WMS_HOST)'],
      [{ WMS_SERVER_BODY_LIMIT_BYTES: '10' }, 'server.bodyLimitBytes (from WMS_SERVER_BODY_LIMIT_BYTES)'],
      [{ WMS_SERVER_CONVEYOR_NICE: '5' }, 'server.conveyorNice (from WMS_SERVER_CONVEYOR_NICE)'],
      [{ WMS_SERVER_CONVEYOR_NICE: '-21' }, 'server.conveyorNice (from WMS_SERVER_CONVEYOR_NICE)'],
      [{ WMS_SERVER_CORS_ORIGINS: 'http://hmi.local' }, 'server.corsOrigins (from WMS_SERVER_CORS_ORIGINS)'],
      [{ WMS_SERVER_CORS_ORIGINS: '[1]' }, 'server.corsOrigins.0 (from WMS_SERVER_CORS_ORIGINS)'],
      [{ WMS_SERVER_PUBLIC_URL: 'not a url' }, 'server.publicUrl (from WMS_SERVER_PUBLIC_URL)'],
      [{ WMS_STORAGE_FILE: '../escape.sqlite' }, 'storage.file (from WMS_STORAGE_FILE)'],
      [{ WMS_STORAGE_BACKUPS_TO_KEEP: '0' }, 'storage.backupsToKeep (from WMS_STORAGE_BACKUPS_TO_KEEP)'],
      [{ WMS_STORAGE_FLUSH: 'never' }, 'storage.flush (from WMS_STORAGE_FLUSH)'],
      [{ WMS_ADMIN_PASSWORD: 'short' }, 'auth.adminPassword (from WMS_ADMIN_PASSWORD)'],
      [{ WMS_AUTH_TOKEN_TTL_SECONDS: '10' }, 'auth.tokenTtlSeconds (from WMS_AUTH_TOKEN_TTL_SECONDS)'],
      [{ WMS_AUTH_PASSWORD_HASH_COST: '20000' }, 'auth.passwordHashCost (from WMS_AUTH_PASSWORD_HASH_COST)'],
      [{ WMS_AUTH_PASSWORD_HASH_COST: '512' }, 'auth.passwordHashCost (from WMS_AUTH_PASSWORD_HASH_COST)'],
      [{ WMS_API_MESSAGE_KEYS: 'camel' }, 'api.messageKeys (from WMS_API_MESSAGE_KEYS)'],
      [{ WMS_LOG_LEVEL: 'loud' }, 'log.level (from WMS_LOG_LEVEL)'],
      [{ WMS_PLC_HOST_NAME: 'MFC' }, 'plc.hostName (from WMS_PLC_HOST_NAME)'],
      [{ WMS_PLC_TIME_ZONE: 'Mars/Olympus' }, 'plc.timeZone (from WMS_PLC_TIME_ZONE)'],
      [{ WMS_PLC_CHANNELS: '{"name":"CNV01"}' }, 'plc.channels (from WMS_PLC_CHANNELS)'],
      [{ WMS_PLC_CHANNELS: '[{"name":"CNV01"}]' }, 'plc.channels.0.port (from WMS_PLC_CHANNELS)'],
    ];
    for (const [env, named] of cases) {
      const message = configError(() => loadConfig({ WMS_DATA_DIR: dir, ...env }));
      expect(message, JSON.stringify(env)).toContain(`invalid config ${named}`);
    }
  });

  it('does not echo the value of a refused secret', () => {
    const message = configError(() => loadConfig({ WMS_DATA_DIR: dataDir(), WMS_ADMIN_PASSWORD: 'sEcr3t' }));
    expect(message).not.toContain('sEcr3t');
  });
});

describe('loadConfig: precedence defaults < file < env < flags', () => {
  it('takes each key from the highest source that sets it', () => {
    const dir = dataDirWithFile({ server: { port: 1000, host: 'file.local' }, log: { level: 'warn' } });
    const fileOnly = loadConfig({ WMS_DATA_DIR: dir }).config;
    expect(fileOnly.server).toMatchObject({ port: 1000, host: 'file.local' });

    const withEnv = loadConfig({ WMS_DATA_DIR: dir, WMS_PORT: '2000' }).config;
    expect(withEnv.server).toMatchObject({ port: 2000, host: 'file.local' });
    expect(withEnv.log.level).toBe('warn');

    const withFlags = loadConfig({ WMS_DATA_DIR: dir, WMS_PORT: '2000', WMS_LOG_LEVEL: 'error' }, parseFlags(['--port', '3000'])).config;
    expect(withFlags.server).toMatchObject({ port: 3000, host: 'file.local' });
    expect(withFlags.log.level).toBe('error');

    const withEqualsFlag = loadConfig({ WMS_DATA_DIR: dir, WMS_SERVER_PORT: '2000' }, parseFlags(['--port=1', '--host=flag.local'])).config;
    expect(withEqualsFlag.server).toMatchObject({ port: 1, host: 'flag.local' });
  });

  it('lets a flag override an invalid value of a lower source', () => {
    const { config } = loadConfig({ WMS_DATA_DIR: dataDir(), WMS_PORT: 'abc' }, parseFlags(['--port', '0']));
    expect(config.server.port).toBe(0);
  });

  it('names the flag when a flag value is invalid', () => {
    const dir = dataDir();
    expect(configError(() => loadConfig({ WMS_DATA_DIR: dir, WMS_PORT: '80' }, parseFlags(['--port', '70000'])))).toContain('server.port (from --port)');
    expect(configError(() => loadConfig({ WMS_DATA_DIR: dir }, parseFlags(['--port=-1'])))).toContain('server.port (from --port)');
  });

  it('puts the overrides of embedders above the flags', () => {
    const { config } = loadConfig({ WMS_DATA_DIR: dataDir() }, parseFlags(['--port', '1']), { server: { port: 2 } });
    expect(config.server.port).toBe(2);
  });
});

describe('loadConfig: the pair (ha)', () => {
  it("refuses a pair without this box's name in it", () => {
    const dir = dataDirWithFile({ ha: { pair: 'hall1' } });
    const message = configError(() => loadConfig({ WMS_DATA_DIR: dir }));
    expect(message).toContain('ha.node');
    expect(message).toContain('a box in a pair needs its own name');
  });

  it('refuses a pair name that cannot be part of a bucket name, and a lease shorter than a second', () => {
    expect(configError(() => loadConfig({ WMS_DATA_DIR: dataDirWithFile({ ha: { pair: 'hall.1', node: 'a' } }) }))).toContain('ha.pair');
    expect(configError(() => loadConfig({ WMS_DATA_DIR: dataDirWithFile({ ha: { pair: 'hall1', node: 'a', leaseTtlMs: 200 } }) }))).toContain('ha.leaseTtlMs');
  });

  it('refuses NATS settings that do not go together, as for the hub link', () => {
    const message = configError(() => loadConfig({ WMS_DATA_DIR: dataDirWithFile({ ha: { pair: 'hall1', node: 'a', nats: { user: 'wms' } } }) }));
    expect(message).toContain('ha.nats');
    expect(message).toContain('user and password go together');
  });
});

describe('redactedConfig', () => {
  it('hides the NATS token and password of the hub link and of the pair', () => {
    const { config } = loadConfig({
      WMS_DATA_DIR: dataDirWithFile({
        federation: { site: 'HALL_1', nats: { token: 'hub-secret' } },
        ha: { pair: 'hall1', node: 'a', nats: { user: 'wms', password: 'pair-secret' } },
      }),
    });
    const redacted = redactedConfig(config);
    expect(redacted.federation.nats.token).toBe('<redacted>');
    expect(redacted.ha.nats.password).toBe('<redacted>');
    expect(redacted.ha.nats.user).toBe('wms');
    expect(JSON.stringify(redacted)).not.toMatch(/hub-secret|pair-secret/);
  });

  it('replaces the admin password and keeps everything else', () => {
    const { config } = loadConfig({ WMS_DATA_DIR: dataDir(), WMS_ADMIN_PASSWORD: 'do-not-print-me', WMS_PORT: '4242' });
    const redacted = redactedConfig(config);
    expect(redacted.auth.adminPassword).toBe('<redacted>');
    expect(JSON.stringify(redacted)).not.toContain('do-not-print-me');
    expect({ ...redacted, auth: { ...redacted.auth, adminPassword: undefined } }).toEqual({
      ...config,
      auth: { ...config.auth, adminPassword: undefined },
    });
    expect(redacted.server.port).toBe(4242);
  });

  it('leaves the config it was given untouched', () => {
    const { config } = loadConfig({ WMS_DATA_DIR: dataDir(), WMS_ADMIN_PASSWORD: 'do-not-print-me' });
    const before = structuredClone(config);
    redactedConfig(config);
    expect(config).toEqual(before);
    expect(config.auth.adminPassword).toBe('do-not-print-me');
  });

  it('adds no password when none is set', () => {
    const { config } = loadConfig({ WMS_DATA_DIR: dataDir() });
    expect('adminPassword' in redactedConfig(config).auth).toBe(false);
  });
});
