import type { Worker } from 'node:worker_threads';
import type pino from 'pino';
import { cachesOver } from '../core/cache.ts';
import type { Db } from '../core/db.ts';
import { Handover, type HandoverOptions } from './handover.ts';
import type { HttpThreadData, ToConveyor, ToHttpThread } from './messages.ts';
import { routeSignatures } from './routes.ts';
import { giveBack, takeWorker } from './worker.ts';

// The conveyor thread's side of the HTTP thread (docs/realtime.md): it starts the
// thread, hands it every commit before any reply that waited for it, runs what it hands
// over (handover.ts), writes its log lines, and starts it again on the same port when it
// ends unexpectedly (a bug there must not take the API away for good, and never stops
// the conveyor).

interface HttpThreadOptions extends HandoverOptions {
  data: HttpThreadData;
  db: Db;
  /** Where the log lines go, the HTTP thread's too. */
  destination: pino.DestinationStream;
}

interface Listening {
  url: string;
  port: number;
  routes: readonly string[];
}

/** Waits before starting a failed thread again: at once, then longer while it keeps failing. */
const RESTART_DELAYS_MS = [0, 1000, 5000, 30_000];

export class HttpThread {
  url = '';
  port = 0;
  /** Times the thread was started again after it ended unexpectedly (diagnostics, tests). */
  restarts = 0;
  private worker: Worker | undefined;
  private readonly options: HttpThreadOptions;
  private readonly handover: Handover;
  /** Removes the running thread's listeners. */
  private detach: () => void = () => undefined;
  private stopping: Promise<number> | undefined;
  private failuresInRow = 0;

  private constructor(options: HttpThreadOptions) {
    this.options = options;
    this.handover = new Handover(options, (message) => this.post(message));
  }

  /** Starts the thread; resolves once it listens. */
  static async start(options: HttpThreadOptions): Promise<HttpThread> {
    const thread = new HttpThread(options);
    const caches = cachesOver(options.db);
    caches.recording = true;
    // Every commit, before the bus hears of it and before any reply that waited for it.
    options.work.after.onCommitted((events, seq) => {
      const forgotten = caches.take();
      if (events.length > 0 || forgotten) thread.post({ kind: 'committed', events, forgotten, seq });
    });
    try {
      await thread.launch(options.data);
      return thread;
    } catch (err) {
      options.work.after.onCommitted(undefined);
      caches.recording = false;
      throw err;
    }
  }

  /**
   * Stops taking requests and lets those under way finish (at most `drainMs`, then they
   * are cut); requests handed over meanwhile are still answered. `graceMs`: requests on
   * connections already open are still taken that long (lifecycle.ts, stopServing).
   * Returns how many connections were cut.
   */
  stop(drainMs: number, graceMs = 0): Promise<number> {
    this.stopping ??= (async () => {
      const worker = this.worker;
      let cut = 0;
      if (worker) {
        let clean = false;
        let onStopped!: (message: ToConveyor) => void;
        let onExit!: () => void;
        cut = await new Promise<number>((resolve) => {
          onStopped = (message) => {
            if (message.kind !== 'stopped') return;
            clean = true;
            resolve(message.cut);
          };
          onExit = () => resolve(0);
          worker.on('message', onStopped);
          worker.once('exit', onExit);
          this.post({ kind: 'stop', drainMs, graceMs });
        });
        // Only these: a Worker keeps listeners of its own.
        worker.off('message', onStopped);
        worker.off('exit', onExit);
        this.detach();
        if (clean) giveBack(worker);
        else await worker.terminate();
      }
      this.worker = undefined;
      this.options.work.after.onCommitted(undefined);
      cachesOver(this.options.db).recording = false;
      return cut;
    })();
    return this.stopping;
  }

  /**
   * Blocks the HTTP thread, as a request that hogs it would, until `release()` or
   * `maxMs` (a diagnostic and the tests' proof that the conveyor thread answers PLCs
   * meanwhile). `holding` resolves once the thread is blocked, `released` once it runs again.
   */
  hold(maxMs: number): { holding: Promise<void>; released: Promise<void>; release(): void } {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const holding = this.nextMessage('holding');
    const released = this.nextMessage('released');
    this.post({ kind: 'hold', release: flag, maxMs });
    return {
      holding,
      released,
      release() {
        Atomics.store(flag, 0, 1);
        Atomics.notify(flag, 0);
      },
    };
  }

  /** Makes the HTTP thread fail as a bug there would (an uncaught exception): a diagnostic of the restart. */
  failOnPurpose(): void {
    this.post({ kind: 'fail' });
  }

  /** Starts a thread for the appliance and waits until it listens. */
  private async launch(data: HttpThreadData): Promise<void> {
    const worker = takeWorker();
    const settle: { resolve?: (listening: Listening) => void; reject?: (err: Error) => void } = {};
    let listening: Listening | undefined;
    const onMessage = (message: ToConveyor) => {
      if (message.kind === 'log') this.options.destination.write(message.lines);
      else if (message.kind === 'listening') settle.resolve?.(message);
      else if (message.kind === 'failed') settle.reject?.(Object.assign(new Error(message.message), { code: message.code, threadStack: message.stack }));
      else this.handover.received(message);
    };
    const onError = (err: Error) => {
      if (listening) this.options.log.error({ err }, 'the HTTP thread failed');
      else settle.reject?.(err);
    };
    const onExit = (code: number) => {
      if (listening) this.ended(worker, code);
      else settle.reject?.(new Error(`the HTTP thread ended (exit code ${code}) before it listened`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    this.detach = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    this.worker = worker;
    try {
      listening = await new Promise<Listening>((resolve, reject) => {
        settle.resolve = resolve;
        settle.reject = reject;
        this.post({ kind: 'start', data });
      });
      if (listening.routes.join('\n') !== routeSignatures(this.options.routes).join('\n')) {
        throw new Error('the HTTP thread built another route table than the conveyor thread');
      }
    } catch (err) {
      this.detach();
      this.worker = undefined;
      await worker.terminate();
      throw err;
    }
    this.url = listening.url;
    this.port = listening.port;
  }

  /** The thread ended while it served: started again on the same port, unless the appliance stops. */
  private ended(worker: Worker, code: number): void {
    if (this.worker !== worker || this.stopping) return;
    this.detach();
    this.worker = undefined;
    this.options.log.error({ exitCode: code }, 'the HTTP thread ended unexpectedly; the conveyor goes on, and the thread is started again on the same port');
    this.restartLater();
  }

  private restartLater(): void {
    const delay = RESTART_DELAYS_MS[Math.min(this.failuresInRow, RESTART_DELAYS_MS.length - 1)]!;
    this.failuresInRow++;
    const { data } = this.options;
    const again: HttpThreadData = { ...data, config: { ...data.config, server: { ...data.config.server, port: this.port } } };
    setTimeout(() => {
      if (this.stopping) return;
      this.launch(again).then(
        () => {
          this.restarts++;
          this.options.log.info({ url: this.url, afterMs: delay }, 'the HTTP thread was started again');
          // Serving again for a while: the next failure is started again at once.
          setTimeout(() => (this.failuresInRow = 0), 60_000).unref();
        },
        (err: unknown) => {
          this.options.log.error({ err }, 'starting the HTTP thread again failed; trying again');
          this.restartLater();
        },
      );
    }, delay).unref();
  }

  private nextMessage(kind: 'holding' | 'released'): Promise<void> {
    const worker = this.worker;
    return new Promise((resolve) => {
      if (!worker) return resolve();
      const listener = (message: ToConveyor) => {
        if (message.kind !== kind) return;
        worker.off('message', listener);
        resolve();
      };
      worker.on('message', listener);
    });
  }

  private post(message: ToHttpThread): void {
    this.worker?.postMessage(message);
  }
}
