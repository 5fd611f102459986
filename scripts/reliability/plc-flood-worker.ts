// The flood of the PLC flood suite (plc-flood.ts), in a process of its own so that it
// does not share an event loop with the PLC whose answers are measured.
//
//   node scripts/reliability/plc-flood-worker.ts PORT IDLE CHURN
//
// Floods 127.0.0.1:PORT from 127.0.0.2 … 127.0.0.9 (plc/connection-flood.ts): IDLE idle
// sockets held open, CHURN connect-and-close loops. Prints `flooding` once it has made
// IDLE + CHURN connections; when its standard input ends it stops and prints its
// counts as one JSON line, then exits.

import { ConnectionFlood } from '../../plc/connection-flood.ts';

const [port, idle, churn] = process.argv.slice(2).map(Number) as [number, number, number];
const flood = new ConnectionFlood({ port, idle, churn });
const started = performance.now();
flood.start();

const going = setInterval(() => {
  if (flood.connected < idle + churn) return;
  clearInterval(going);
  console.log('flooding');
}, 5);

process.stdin.resume();
process.stdin.on('end', async () => {
  clearInterval(going);
  const seconds = (performance.now() - started) / 1000;
  await flood.stop();
  console.log(JSON.stringify({ connected: flood.connected, failed: flood.failed, seconds }));
  process.exit(0);
});
