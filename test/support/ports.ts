import { readFileSync } from 'node:fs';
import net from 'node:net';

// A TCP port free on loopback right now, for servers that cannot be given port 0 (a
// Modbus slave, a nats-server with its config file) or must come back on the same one.
//
// The port is taken below the kernel's ephemeral range: a port from listen(0) lies inside
// it, where any outgoing connection on the box (a browser, another suite beside this one)
// may take it as its local port between the probe and the server's own bind. Below the
// range only listeners take ports, and a random pick makes two suites' picks meet rarely;
// a port this process handed out once is not handed out again.

const given = new Set<number>();

/** The lowest ephemeral port (32768 on Linux by default). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
}

const LOW = ephemeralLow();
/** Where ports are picked: the 12,000 below the ephemeral range, when the range leaves room for them. */
const RANGE = LOW > 13_024 ? { from: LOW - 12_000, to: LOW - 1 } : undefined;

function listens(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err)));
    probe.listen(port, '127.0.0.1', () => {
      const bound = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const wanted = RANGE ? RANGE.from + Math.floor(Math.random() * (RANGE.to - RANGE.from + 1)) : 0;
    if (given.has(wanted)) continue;
    const port = await listens(wanted);
    if (port !== undefined && !given.has(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error('no free TCP port found on 127.0.0.1');
}
