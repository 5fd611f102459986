import net from 'node:net';

// A TCP port free on loopback right now, for servers that cannot be given port 0 (a
// Modbus slave, a nats-server with its config file) or must come back on the same one.

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
