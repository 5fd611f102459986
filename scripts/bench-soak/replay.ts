// Event-stream replays for the soak, as a process of its own (what it parses does not
// disturb the PLC client's timing): `streams` clients connect at once with
// `Last-Event-ID: from`, as HMI pages and integrations do after a network cut, and read
// as fast as they can until each has seen event `until` (or `timeoutMs` passes). It
// prints one JSON line: events and bytes received, how many streams got there, how many
// the appliance ended or reset, and how long the slowest took.
//
//   node scripts/bench-soak/replay.ts '{"url":…,"token":…,"streams":5,"from":0,"until":120000,"timeoutMs":60000}'

import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface ReplayConfig {
  url: string;
  token: string;
  streams: number;
  /** Last-Event-ID sent: the replay starts after it. */
  from: number;
  /** The newest event when the replay started: a stream that has seen it is done. */
  until: number;
  timeoutMs: number;
}

export interface ReplayResult {
  events: number;
  bytes: number;
  caughtUp: number;
  ended: number;
  reset: number;
  slowestMs: number;
}

function replayOne(config: ReplayConfig, result: ReplayResult): Promise<void> {
  const started = performance.now();
  return new Promise((resolve) => {
    let buffer = '';
    let finished = false;
    const finish = (how: 'caughtUp' | 'ended' | 'reset' | 'timeout') => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (how !== 'timeout') result[how]++;
      result.slowestMs = Math.max(result.slowestMs, performance.now() - started);
      req.destroy();
      resolve();
    };
    const req = http.get(
      `${config.url}/v1/events`,
      { headers: { Authorization: `Bearer ${config.token}`, 'Last-Event-ID': String(config.from), Accept: 'text/event-stream' } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          result.bytes += text.length;
          buffer += text;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (block.startsWith('event: reset')) return finish('reset');
            const id = /^id: (\d+)$/m.exec(block)?.[1];
            if (id === undefined) continue;
            result.events++;
            if (Number(id) >= config.until) return finish('caughtUp');
          }
        });
        res.on('end', () => finish('ended'));
        res.on('error', () => finish('ended'));
      },
    );
    req.on('error', () => finish('ended'));
    const timer = setTimeout(() => finish('timeout'), config.timeoutMs);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const config = JSON.parse(process.argv[2]!) as ReplayConfig;
  const result: ReplayResult = { events: 0, bytes: 0, caughtUp: 0, ended: 0, reset: 0, slowestMs: 0 };
  await Promise.all(Array.from({ length: config.streams }, () => replayOne(config, result)));
  console.log(JSON.stringify(result));
}
