import type { Logger } from '../core/log.ts';
import type { Logs } from '../core/log-store/index.ts';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import { RequestContext } from '../http/context.ts';
import type { MessageKeyFamily } from '../http/errors.ts';
import { errorReply, runHandler } from '../http/handling.ts';
import type { Reply, Route } from '../http/router.ts';
import type { Question, ToConveyor, ToHttpThread, WireReply, WireRequest } from './messages.ts';

// What the conveyor thread does for the HTTP thread: the requests handed over to it,
// run by the same handlers inside the same group commit as before the split, their
// replies (or refusals) sent back as data; and the questions it asks.

export interface HandoverOptions {
  /** The conveyor thread's route table; the HTTP thread's is the same. */
  routes: readonly Route[];
  work: UnitOfWork;
  logs: Logs;
  log: Logger;
  messageKeys: MessageKeyFamily;
  /** The conveyor thread's metrics, as prom-client's JSON (GET /metrics joins both threads'). */
  metrics: () => Promise<unknown>;
  /** Writes an API key's last use. */
  apiKeyUsed: (pk: string, at: string) => void;
}

export class Handover {
  private readonly options: HandoverOptions;
  private readonly post: (message: ToHttpThread) => void;

  constructor(options: HandoverOptions, post: (message: ToHttpThread) => void) {
    this.options = options;
    this.post = post;
  }

  received(message: ToConveyor): void {
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
}
