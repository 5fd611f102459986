// Closed-loop HTTP load with wrk (C, its own process, one thread unless told otherwise:
// the other core is left to the server): N keep-alive connections, each sending its next request when
// the last was answered. The server's CPU per request from /proc.

import { execFileSync, type ChildProcess } from 'node:child_process';
import { cpuTimeUs } from '../bench-plc/appliance.ts';

export interface WrkResult {
  rps: number;
  requests: number;
  /** Non-2xx replies and socket errors. */
  errors: number;
  p50ms: number;
  p99ms: number;
  /** Server CPU (user + system) per request, µs. */
  cpuUs: number;
}

export function requireWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    // wrk prints its version and exits 1; only a missing binary is a problem.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error('wrk is needed for the closed-loop loads: apt-get install wrk');
      process.exit(1);
    }
  }
}

export function wrk(
  url: string,
  options: { server: ChildProcess; seconds: number; connections: number; headers?: Record<string, string>; script?: string; threads?: number },
): WrkResult {
  const before = cpuTimeUs(options.server.pid!);
  const args = ['-t', String(options.threads ?? 1), '-c', String(options.connections), '-d', `${options.seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}: ${v}`);
  if (options.script) args.push('-s', options.script);
  const out = execFileSync('wrk', [...args, url], { encoding: 'utf8' });
  const cpu = cpuTimeUs(options.server.pid!) - before;
  const number = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  const latency = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
    if (!m) return NaN;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const requests = number(/(\d+) requests in/);
  return {
    rps: number(/Requests\/sec:\s+([\d.]+)/),
    requests,
    errors: (number(/Non-2xx or 3xx responses: (\d+)/) || 0) + (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0),
    p50ms: latency('50'),
    p99ms: latency('99'),
    cpuUs: cpu / Math.max(1, requests),
  };
}

/**
 * A wrk script that GETs a random rack location by coordinate: the formula of
 * layout.ts rack(n), in Lua.
 */
export function randomCoordinateScript(racks: number): string {
  return `math.randomseed(os.time())
request = function()
  local n = math.random(0, ${racks - 1})
  local area = string.format("AR%02d", math.floor(n / 100000) + 1)
  local id = string.format("%s%%2F%04d%%2F%04d%%2F%04d%%2F0000", area, math.floor(n / 1000) % 100 + 1, math.floor(n / 10) % 100 + 1, n % 10 + 1)
  return wrk.format("GET", "/v1/locations?locationId=" .. id)
end`;
}

/** A wrk script that POSTs a new location per request in `area`. */
export function createScript(area: string, token: string): string {
  return `counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${token}"
request = function()
  counter = counter + 1
  local body = string.format('{"locationId":"${area}/%04d/%04d/0000/0000","locationGroupName":"WAREHOUSE"}', math.floor(counter / 10000), counter % 10000)
  return wrk.format(nil, "/v1/locations", nil, body)
end`;
}
