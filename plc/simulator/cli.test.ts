import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeHost } from './fake-host.ts';

// The command line as a child process (Node runs the .ts file directly) against the fake host.

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
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

  it('--help prints the usage and exits 0; a bad option exits 1', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run plc:sim/);
    expect(help.stdout).toContain('run-tu BARCODE START');
    const bad = await runCli(['--tcp', '127.0.0.1:1', '--framing', 'morse', 'synq']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--framing must be/);
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
