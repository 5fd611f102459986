import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { StartupError } from '../core/db.ts';

// The HTTP server's life around the requests: its certificate read at start, the port
// taken (with what to do when it cannot be), and a stop that lets requests under way
// finish before it cuts them off.

/** The certificate and key of `server.tls`, read once at start; a file that cannot be read stops the start naming it. */
export function readTls(tls: { cert: string; key: string } | undefined): { cert: Buffer; key: Buffer } | undefined {
  if (!tls) return undefined;
  const read = (what: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new StartupError(`server.tls.${what}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const cert = read('cert', tls.cert);
  const key = read('key', tls.key);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new StartupError(`server.tls: ${tls.cert} and ${tls.key} are not a PEM certificate and its private key (${(err as Error).message})`);
  }
  return { cert, key };
}

/**
 * Takes the port. `shared`: with SO_REUSEPORT, so that another server of this process's
 * user may listen on it beside this one (a box of a pair: its switchover's door opens
 * before its own server closes, docs/ha.md); a box alone keeps the port to itself.
 */
export function listen(server: Server, port: number, host: string, { shared = false }: { shared?: boolean } = {}): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      // Say what to do, not only what happened: an installer's next step is another port.
      if (err.code === 'EADDRINUSE')
        err.message = `another program already listens on ${host}:${port}; choose another port with --port N (or WMS_PORT, server.port in wms.config.json)`;
      if (err.code === 'EACCES')
        err.message = `no permission to listen on ${host}:${port} (ports below 1024 need root or CAP_NET_BIND_SERVICE); choose another with --port N`;
      reject(err);
    });
    server.listen({ port, host, reusePort: shared }, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** `http(s)://host:port` of a listening server; a wildcard address is reached at the loopback. */
export function urlOf(address: AddressInfo, tls: boolean): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${tls ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
}

/**
 * Stops serving: no new connections; a request on a connection already open is still
 * taken for `graceMs` (answered with `Connection: close`, server.ts), then idle
 * connections close; `endStreams` ends the open event streams (they would keep the server
 * waiting for ever); requests under way may finish for `drainMs`. Returns how many
 * connections it cut.
 *
 * The grace is for a switchover (docs/ha.md): a client that sends its next request on its
 * kept-alive connection just as the server closes that connection sees the request fail
 * ("connection reset"), and may not send a write again by itself. Given the grace, an
 * active client gets its answer with `Connection: close` and opens a new connection
 * (which the switchover's door takes) instead.
 */
export async function stopServing(
  server: Server,
  { drainMs, graceMs = 0, endStreams }: { drainMs: number; graceMs?: number | undefined; endStreams: () => void },
): Promise<number> {
  // No new connections: the listener alone (http.Server's close would end idle connections too).
  NetServer.prototype.close.call(server);
  // Open event streams end first: they would keep the server waiting for ever.
  endStreams();
  if (graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs));
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return drain(server, closed, drainMs);
}

/**
 * Waits until the closed server's requests are answered (`closed`), at most `ms`; then
 * cuts the connections left. Returns how many it cut.
 */
export async function drain(server: Server, closed: Promise<void>, ms: number): Promise<number> {
  // Keep-alive connections that finished their request go now, not at their timeout.
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    if ((await Promise.race([closed, late])) !== 'late') return 0;
    const count = await new Promise<number>((resolve) => server.getConnections((_err, n) => resolve(n)));
    server.closeAllConnections();
    await closed;
    return count;
  } finally {
    clearInterval(idle);
    clearTimeout(timer);
  }
}

export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
