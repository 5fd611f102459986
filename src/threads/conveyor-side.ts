import { Worker } from 'node:worker_threads';
import type pino from 'pino';
import { cachesOver } from '../core/cache.ts';
import type { Db } from '../core/db.ts';
import type { Logs } from '../core/log-store/index.ts';
import type { Logger } from '../core/log.ts';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import { RequestContext } from '../http/context.ts';
import type { MessageKeyFamily } from '../http/errors.ts';
import { errorReply, runHandler } from '../http/handling.ts';
import type { Reply, Route } from '../http/router.ts';
import type { HttpThreadData, Question, ToConveyor, ToHttpThread, WireReply, WireRequest } from './messages.ts';
import { routeSignatures } from './routes.ts';
import { giveBack, takeWorker } from './worker.ts';

// The conveyor thread's side of the HTTP thread (docs/realtime.md): it starts the
// thread, runs the requests handed over to it (the same handlers, inside the same group
// commit as before the split), tells the thread of every commit before any reply that
// waited for it, and writes the thread's log lines.

interface HttpThreadOptions {
  data: HttpThreadData;
  /** The conveyor thread's route table; the HTTP thread's must be the same. */
  routes: readonly Route[];
  db: Db;
  work: UnitOfWork;
  logs: Logs;
  log: Logger;
  /** Where the log lines go, the HTTP thread's too. */
  destination: pino.DestinationStream;
  messageKeys: MessageKeyFamily;
  /** The conveyor thread's metrics, as prom-client's JSON (GET /metrics joins both threads'). */
  metrics: () => Promise<unknown>;
  /** Writes an API key's last use. */
  apiKeyUsed: (pk: string, at: string) => void;
}

interface Listening {
  url: string;
  port: number;
  routes: readonly string[];
}

export class HttpThread {
  readonly url: string;
  readonly port: number;
  private readonly worker: Worker;
  private readonly options: HttpThreadOptions;
  private readonly onMessage: (message: ToConveyor) => void;
  private readonly onError: (err: Error) => void;
  private stopping: Promise<number> | undefined;

  private constructor(worker: Worker, options: HttpThreadOptions, onMessage: (message: ToConveyor) => void, listening: { url: string; port: number }) {
    this.worker = worker;
    this.options = options;
    this.onMessage = onMessage;
    this.onError = (err) => options.log.error({ err }, 'the HTTP thread failed');
    worker.on('error', this.onError);
    this.url = listening.url;
    this.port = listening.port;
  }

  /** Starts the thread; resolves once it listens. */
  static async start(options: HttpThreadOptions): Promise<HttpThread> {
    const { work, db } = options;
    const worker = takeWorker();
    const caches = cachesOver(db);
    caches.recording = true;
    const post = (message: ToHttpThread) => worker.postMessage(message);
    // Every commit, before the bus hears of it and before any reply that waited for it.
    work.onCommitted((events) => {
      const forgotten = caches.take();
      if (events.length > 0 || forgotten) post({ kind: 'committed', events, forgotten });
    });
    let thread: HttpThread | undefined;
    const settle: { resolve?: (listening: Listening) => void; reject?: (err: Error) => void } = {};
    const onMessage = (message: ToConveyor) => {
      if (message.kind === 'log') options.destination.write(message.lines);
      else if (message.kind === 'listening') settle.resolve?.(message);
      else if (message.kind === 'failed') settle.reject?.(Object.assign(new Error(message.message), { code: message.code, threadStack: message.stack }));
      else thread?.received(message);
    };
    const onError = (err: Error) => settle.reject?.(err);
    const onExit = (code: number) => settle.reject?.(new Error(`the HTTP thread ended (exit code ${code}) before it listened`));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    try {
      const listening = await new Promise<Listening>((resolve, reject) => {
        settle.resolve = resolve;
        settle.reject = reject;
        post({ kind: 'start', data: options.data });
      });
      if (listening.routes.join('\n') !== routeSignatures(options.routes).join('\n')) {
        throw new Error('the HTTP thread built another route table than the conveyor thread');
      }
      thread = new HttpThread(worker, options, onMessage, listening);
      return thread;
    } catch (err) {
      work.onCommitted(undefined);
      caches.recording = false;
      worker.off('message', onMessage);
      await worker.terminate();
      throw err;
    } finally {
      worker.off('error', onError);
      worker.off('exit', onExit);
    }
  }

  /**
   * Stops taking requests and lets those under way finish (at most `drainMs`, then they
   * are cut); requests handed over meanwhile are still answered. Returns how many
   * connections were cut.
   */
  stop(drainMs: number): Promise<number> {
    this.stopping ??= (async () => {
      const { worker } = this;
      let clean = false;
      let onStopped!: (message: ToConveyor) => void;
      let onExit!: () => void;
      const cut = await new Promise<number>((resolve) => {
        onStopped = (message) => {
          if (message.kind !== 'stopped') return;
          clean = true;
          resolve(message.cut);
        };
        onExit = () => resolve(0);
        worker.on('message', onStopped);
        worker.once('exit', onExit);
        this.post({ kind: 'stop', drainMs });
      });
      this.options.work.onCommitted(undefined);
      cachesOver(this.options.db).recording = false;
      // Only these: a Worker keeps listeners of its own.
      for (const listener of [this.onMessage, onStopped]) worker.off('message', listener);
      worker.off('exit', onExit);
      worker.off('error', this.onError);
      if (clean) giveBack(worker);
      else await worker.terminate();
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

  private nextMessage(kind: 'holding' | 'released'): Promise<void> {
    return new Promise((resolve) => {
      const listener = (message: ToConveyor) => {
        if (message.kind !== kind) return;
        this.worker.off('message', listener);
        resolve();
      };
      this.worker.on('message', listener);
    });
  }

  private received(message: ToConveyor): void {
    if (message.kind === 'request') this.run(message.id, message.request);
    else if (message.kind === 'ask') void this.answer(message.id, message.question);
    else if (message.kind === 'apiKeyUsed') this.options.apiKeyUsed(message.pk, message.at);
  }

  /** A request handed over: its handler, as the server runs it, inside this thread's group commit. */
  private run(id: number, wire: WireRequest): void {
    const route = this.options.routes[wire.route]!;
    const fail = (err: unknown) => {
      const { status, body, type, headers } = errorReply(err, this.options, { requestId: wire.requestId, method: wire.method, rawPath: wire.path });
      this.post({ kind: 'reply', id, reply: { status, body, type, headers } });
    };
    let ctx: RequestContext;
    try {
      const { body } = wire;
      ctx = new RequestContext({
        ...wire,
        query: new URLSearchParams(wire.query),
        body: body ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : undefined,
      });
    } catch (err) {
      fail(err);
      return;
    }
    runHandler(
      route,
      ctx,
      this.options.work,
      (reply) => {
        this.wire(route, reply).then((crossing) => this.post({ kind: 'reply', id, reply: crossing }), fail);
      },
      fail,
    );
  }

  /** A reply as data: a list's chunks gathered into its array; a stream or a file does not cross. */
  private async wire(route: Route, reply: Reply): Promise<WireReply> {
    if (reply.stream || reply.file) throw new Error(`${route.method} ${route.path} answers with a stream or a file: it must run on the HTTP thread`);
    const { status, body, raw, type, headers, withoutLocation, items } = reply;
    const crossing: WireReply = { status, body, raw, type, headers, withoutLocation };
    if (items) {
      const all: unknown[] = [];
      for await (const chunk of items) all.push(...chunk);
      crossing.body = all;
    }
    return crossing;
  }

  private async answer(id: number, question: Question): Promise<void> {
    try {
      const value = question.op === 'syncLogs' ? await this.options.logs.sync() : await this.options.metrics();
      this.post({ kind: 'answer', id, value });
    } catch (err) {
      this.post({ kind: 'answer', id, error: (err as Error).message });
    }
  }

  private post(message: ToHttpThread): void {
    this.worker.postMessage(message);
  }
}
