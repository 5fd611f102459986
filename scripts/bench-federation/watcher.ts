// The hub side of the hub link benchmark, a process of its own (forked with an IPC
// channel by bench-federation.ts) so that taking the events off NATS does not run on
// the PLC client's event loop: a core NATS subscription on wms.<site>.events.>, and
// for every event its id, the time it arrived here and its `at` (stamped in the
// appliance's unit of work just before the commit).
//
// A core subscription gets a publish when the server routes it; the stream stores the
// same message at that moment in a goroutine of its own and acknowledges it after the
// store (the appliance waits for that acknowledgement, not for this subscriber).
//
//   node watcher.ts <nats url> <site>
//
// Messages to the parent: {ready: true} once subscribed; on {take: true}, {events:
// [id, arrivedMs, atMs, ...]} of what arrived since the last take (epoch ms, arrival
// to a fraction of a millisecond; `at` has whole milliseconds).

import { performance } from 'node:perf_hooks';
import { connect } from '@nats-io/transport-node';

const [url, site] = process.argv.slice(2);
if (!url || !site || !process.send) {
  console.error('usage: watcher.ts <nats url> <site>, forked with an IPC channel');
  process.exit(2);
}

// Kept as flat numbers: tens of thousands of events a phase, without an object each.
let arrived: number[] = [];
let malformed = 0;

// The server is stopped and started again in the backlog phase: reconnect for ever.
const nc = await connect({ servers: url, name: 'bench-federation-watcher', maxReconnectAttempts: -1, reconnectTimeWait: 250 });
const subscription = nc.subscribe(`wms.${site}.events.>`, {
  callback: (err, msg) => {
    const now = performance.timeOrigin + performance.now();
    if (err) return;
    try {
      const event = msg.json<{ id: number; at: string }>();
      arrived.push(event.id, now, Date.parse(event.at));
    } catch {
      malformed++;
    }
  },
});
await nc.flush();

process.on('message', (message: { take?: boolean; stop?: boolean }) => {
  if (message.take) {
    process.send!({ events: arrived, malformed });
    arrived = [];
  }
  if (message.stop) {
    subscription.unsubscribe();
    void nc.close().then(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
