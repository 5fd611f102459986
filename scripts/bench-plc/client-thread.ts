// The PLC client on a thread of its own, at a priority above everything else on the box.
//
// A PLC is a device of its own: the time it waits for its own CPU is no part of the
// appliance's answer. On the benchmark's box the client shares two cores with the
// appliance and with an API load generator that keeps both cores busy; a client thread at
// the priority of other processes then sends its REQ_ late and reads the RES_ late, and
// that wait counts in the measured latency (under bench:mixed's full load, 12 ms at the
// 99th percentile of its sends, 61 ms at most). So the client runs on a worker thread
// that raises itself to nice -20, where the kernel lets it (root or CAP_SYS_NICE), and
// sends 4-6 ms late at the 99th percentile under that load instead. Everything else the
// benchmark does (the probes, the scrapes, the processes it starts) keeps its priority.
// A real-time client (SCHED_FIFO) was tried: it sent on time, but the bare responder's
// round trip, the floor, rose from 0.07 to 0.20 ms at the median and from 0.6-1.5 to
// 1.6-4.0 ms at the 99th percentile, so it measured itself more than the appliance. How
// late the client sent, `RunResult.lag`, is reported beside the latencies so that a run
// shows whether the client kept its schedule.

import { getPriority, setPriority } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { threadId } from '../../src/core/thread-priority.ts';
import { dialTcp, PlcClient, type ClientOptions, type RunResult } from './client.ts';

/** The nice value the client thread asks for: the highest there is. */
export const CLIENT_NICE = -20;

type Request =
  { id: number; op: 'connect'; port: number } | { id: number; op: 'paced'; rate: number; seconds: number; drainMs: number } | { id: number; op: 'close' };
/** A request as sent, before it gets its id. */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;
type Reply = { id: number; ok: true; value?: unknown } | { id: number; ok: false; message: string };

/** What became of the client thread's priority. */
export interface ClientPriority {
  /** As a run reports it: `nice -20`. */
  text: string;
  /** Why the thread could not take CLIENT_NICE. */
  refused?: string;
}

/** A PlcClient on a worker thread of its own (above); the same calls, answered by messages. */
export class PlcClientThread {
  /** The client thread's priority, as it could take it. */
  readonly priority: ClientPriority;
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();

  private constructor(worker: Worker, priority: ClientPriority) {
    this.worker = worker;
    this.priority = priority;
    worker.on('message', (reply: Reply) => {
      const waiting = this.waiting.get(reply.id);
      if (!waiting) return;
      this.waiting.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(new Error(reply.message));
    });
    worker.on('error', (err) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    });
  }

  static async start(options: ClientOptions): Promise<PlcClientThread> {
    const worker = new Worker(new URL(import.meta.url), { workerData: options });
    const priority = await new Promise<ClientPriority>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    return new PlcClientThread(worker, priority);
  }

  /** Dials the host's PLC port on 127.0.0.1 (again, after the host was started anew). */
  connectTcp(port: number): Promise<void> {
    return this.request({ op: 'connect', port }).then(() => undefined);
  }

  /** PlcClient.paced, on the client thread. */
  paced(rate: number, seconds: number, drainMs = 5000): Promise<RunResult> {
    return this.request({ op: 'paced', rate, seconds, drainMs }) as Promise<RunResult>;
  }

  async close(): Promise<void> {
    await this.request({ op: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }

  private request(message: Unnumbered<Request>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }
}

/** The worker's side: raise this thread, then serve the requests with one PlcClient. */
function serve(options: ClientOptions): void {
  const port = parentPort!;
  port.postMessage(raise());
  const client = new PlcClient(options);
  port.on('message', (request: Request) => {
    const answer = async (): Promise<unknown> => {
      switch (request.op) {
        case 'connect':
          return client.connect((onData) => dialTcp(request.port, onData));
        case 'paced':
          return client.paced(request.rate, request.seconds, request.drainMs);
        case 'close':
          return client.close();
      }
    };
    answer().then(
      (value) => port.postMessage({ id: request.id, ok: true, value } satisfies Reply),
      (err: Error) => port.postMessage({ id: request.id, ok: false, message: err.message } satisfies Reply),
    );
  });
}

/** Sets the calling thread to CLIENT_NICE, where allowed. */
function raise(): ClientPriority {
  const tid = threadId();
  if (tid === undefined) return { text: `nice ${getPriority()}`, refused: 'threads cannot be told apart here (no /proc/thread-self)' };
  try {
    setPriority(tid, CLIENT_NICE);
    return { text: `nice ${CLIENT_NICE}` };
  } catch (err) {
    return { text: `nice ${getPriority(tid)}`, refused: (err as NodeJS.ErrnoException).code ?? String(err) };
  }
}

if (!isMainThread && (workerData as { barcodes?: unknown } | undefined)?.barcodes) serve(workerData as ClientOptions);
