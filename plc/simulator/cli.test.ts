import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, runSimulatorCli } from './cli.ts';
import { FakeHost } from './fake-host.ts';

// The command line as a child process (Node runs the .ts file directly) against the fake host.

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

/**
 * Runs the command line. A reply may take a while on a busy box (a second suite beside
 * this one): unless a test sets its own `--timeout`, the command waits up to 15 s for each
 * reply instead of its default half second.
 */
function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const deadline = args.includes('--timeout') || args.includes('--help') ? [] : ['--timeout', '15000'];
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...deadline, ...args], { timeout: 40_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function fakeHost(options: ConstructorParameters<typeof FakeHost>[0] = {}): Promise<{ host: FakeHost; port: number }> {
  const host = new FakeHost(options);
  const port = await host.listen();
  cleanup.push(() => host.close());
  return { host, port };
}

describe('plc:sim command line', () => {
  it('synq prints the SYNQ sent and the SYNC received, exit code 0', async () => {
    const { port } = await fakeHost();
    const { code, stdout } = await runCli(['--tcp', `127.0.0.1:${port}`, '--name', 'CNV01', 'synq']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^>> ###00160CNV01MFC__00001SYNQ\d{14}\*{119}$/m);
    expect(stdout).toMatch(/^<< ###00160MFC__CNV0100002SYNC\d{14}\*{119} {3}\(SYNC seq 2, [\d.]+ ms\)$/m);
  });

  it('exits 1 when the host is unreachable', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const { code, stderr } = await runCli(['--tcp', `127.0.0.1:${port}`, 'synq']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/ECONNREFUSED/);
  });

  it('exits 1 when the SYNQ is not answered', async () => {
    const { port } = await fakeHost({ reply: () => [] });
    const { code, stderr } = await runCli(['--tcp', `127.0.0.1:${port}`, '--timeout', '200', 'synq']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/no SYNC within 200 ms/);
  });

  it('run-tu follows the host through every hop and prints the trace', async () => {
    const { port } = await fakeHost({
      routes: { CONV0001000100000000: 'CONV0001000200000000', CONV0001000200000000: 'STCK0001000300020001' },
    });
    const { code, stdout } = await runCli(['--tcp', `127.0.0.1:${port}`, 'run-tu', '4711', 'CONV/0001/0001/0000/0000']);
    expect(code).toBe(0);
    expect(stdout).toContain('TU 4711 at CONV/0001/0001/0000/0000 → CONV/0001/0002/0000/0000');
    expect(stdout).toContain('TU 4711 at STCK/0001/0003/0002/0001 → no target');
    expect(stdout).toContain('visited CONV/0001/0001/0000/0000 → CONV/0001/0002/0000/0000 → STCK/0001/0003/0002/0001; done');
    expect(stdout.match(/^>> .{23}REQ_/gm)).toHaveLength(3);
  });

  it('locu and sysu send their telegram and exit 0 when no ERR_ comes back', async () => {
    const { host, port } = await fakeHost();
    const locu = await runCli(['--tcp', `127.0.0.1:${port}`, '--wait', '100', 'locu', 'CONV/0001/0002/0000/0000', '0012***1']);
    expect(locu.code).toBe(0);
    expect(locu.stdout).toMatch(/^>> ###00160CNV01MFC__00001LOCU_{20}CONV00010002000000000012\*\*\*1\d{14}/m);
    const sysu = await runCli(['--tcp', `127.0.0.1:${port}`, '--wait', '100', 'sysu', 'CONV', '******1*']);
    expect(sysu.code).toBe(0);
    await host.until(() => host.connections.length === 2 && host.connections[1]!.telegrams.length === 1);
    expect(host.connections[1]!.telegrams[0]).toMatch(/^###00160CNV01MFC__00001SYSUCONV_{16}\*{6}1\*\d{14}/);
  });

  it('exits 1 when the host answers a one-way telegram with ERR_', async () => {
    const err = '###00160MFC__CNV0100002ERR_********************0000001320250312081531'.padEnd(160, '*');
    const { port } = await fakeHost({ reply: () => [err] });
    const { code, stdout } = await runCli(['--tcp', `127.0.0.1:${port}`, 'sysu', 'NOPE', '******1*']);
    expect(code).toBe(1);
    expect(stdout).toContain(`<< ${err}`);
  });

  it('--help prints the usage and exits 0; a bad option exits 2 with one line', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run plc:sim -- \[options\]/);
    expect(help.stdout).toContain('run-tu BARCODE START');
    expect(help.stdout).toContain('  npm run plc:sim -- --tcp 127.0.0.1:5020 run-tu 4711 CONV/0001/0001/0000/0000');
    const bad = await runCli(['--tcp', '127.0.0.1:1', '--framing', 'morse', 'synq']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('npm run plc:sim: --framing must be line, fixed or stxetx, got "morse"\n');
    const unknown = await runCli(['--tcp', '127.0.0.1:1', '--fast', 'synq']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("npm run plc:sim: Unknown option '--fast' (see --help)\n");
  });

  it('a field the encoder refuses is a bad argument: exit 2 before connecting', async () => {
    const { host, port } = await fakeHost();
    const bad = await runCli(['--tcp', `127.0.0.1:${port}`, 'req', '4711', 'CONV/0001/0001']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('npm run plc:sim: location must have 5 parts: "CONV/0001/0001"\n');
    expect(bad.stdout).toBe('');
    const long = await runCli(['--tcp', `127.0.0.1:${port}`, '--name', 'CONVEYOR', 'listen', '10']);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/name is longer than 5 characters/);
    // A good call afterwards is the host's first connection: the bad ones never connected.
    expect((await runCli(['--tcp', `127.0.0.1:${port}`, 'synq'])).code).toBe(0);
    expect(host.connections).toHaveLength(1);
  });

  it('req, heartbeat and raw against the fake host', async () => {
    const { host, port } = await fakeHost({ routes: { CONV0001000100000000: 'CONV0001000200000000' } });
    const req = await runCli(['--tcp', `127.0.0.1:${port}`, 'req', '4711', 'CONV/0001/0001/0000/0000']);
    expect(req.code).toBe(0);
    expect(req.stdout).toContain('RES_: target CONV/0001/0002/0000/0000, group none, code ********');
    const beat = await runCli(['--tcp', `127.0.0.1:${port}`, '--seq', '100', 'heartbeat', '10', '3']);
    expect(beat.code).toBe(0);
    expect(beat.stdout).toContain('3 of 3 SYNQ answered');
    expect(beat.stdout.match(/^>> ###00160CNV01MFC__0010[012]SYNQ/gm)).toHaveLength(3);
    const text = '###00160CNV01MFC__00009SYNQ20250312081459'.padEnd(160, '*');
    const raw = await runCli(['--tcp', `127.0.0.1:${port}`, '--wait', '100', 'raw', text]);
    expect(raw.code).toBe(0);
    expect(raw.stdout).toContain(`>> ${text}\n`);
    await host.until(() => host.connections[2]?.bytes.length === 162);
    expect(host.connections[2]!.bytes.toString('latin1')).toBe(text + '\r\n');
  });

  it('--listen waits for the appliance to connect, then talks', async () => {
    const host = new FakeHost();
    cleanup.push(() => host.close());
    const child = spawn(process.execPath, [CLI, '--listen', '127.0.0.1:0', 'synq'], { stdio: ['ignore', 'pipe', 'pipe'] });
    cleanup.push(async () => {
      if (child.exitCode === null) child.kill();
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const deadline = Date.now() + 10_000;
    let m: RegExpMatchArray | null = null;
    while (!(m = /listening on 127\.0\.0\.1:(\d+)/.exec(stdout)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(m).not.toBeNull();
    await host.dial(Number(m![1]));
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/^<< ###00160MFC__CNV0100002SYNC/m);
  });
});

describe('runSimulatorCli, as the appliance calls it (wms simulate)', () => {
  async function inProcess(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runSimulatorCli(argv, { program: 'wms simulate', out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err };
  }

  it("names the caller's program in the usage, the examples and its messages", async () => {
    const help = await inProcess(['-h']);
    expect(help.code).toBe(EXIT.ok);
    expect(help.out).toMatch(/^Usage: wms simulate \[options\] <command> \[arguments\]/);
    expect(help.out).toContain('  wms simulate --tcp 127.0.0.1:5020 run-tu 4711 CONV/0001/0001/0000/0000');
    expect(help.out).not.toContain('npm run');
    expect(await inProcess(['--tcp', '127.0.0.1:1'])).toEqual({ code: EXIT.badArguments, out: '', err: ['wms simulate: no command given (see --help)'] });
  });

  it('returns 0 for an exchange that went as the protocol says, 1 for one that did not', async () => {
    const { port } = await fakeHost();
    const ok = await inProcess(['--tcp', `127.0.0.1:${port}`, 'synq']);
    expect(ok.code).toBe(EXIT.ok);
    expect(ok.out).toMatch(/^<< ###00160MFC__CNV0100002SYNC/m);
    const { port: silent } = await fakeHost({ reply: () => [] });
    const failed = await inProcess(['--tcp', `127.0.0.1:${silent}`, '--timeout', '100', 'synq']);
    expect(failed.code).toBe(EXIT.failed);
    expect(failed.err).toEqual(['wms simulate: no SYNC within 100 ms']);
  });
});
