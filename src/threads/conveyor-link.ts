import type { MessagePort } from 'node:worker_threads';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { RequestContextInit } from '../http/context.ts';
import type { Reply } from '../http/router.ts';
import type { ConveyorPort } from '../modules/module.ts';
import type { Question, ToConveyor, ToHttpThread, WireReply } from './messages.ts';

// The HTTP thread's side of the link to the conveyor thread: requests handed over and
// their replies, questions and their answers, matched by id.

export class ConveyorLink implements ConveyorPort {
  private readonly port: MessagePort;
  private nextId = 1;
  private readonly replies = new Map<number, (reply: Reply) => void>();
  private readonly answers = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();

  constructor(port: MessagePort) {
    this.port = port;
  }

  /** Runs the route at `route` in the table on the conveyor thread; its reply, a refusal included. */
  forward(route: number, request: RequestContextInit): Promise<Reply> {
    const id = this.nextId++;
    const { query, body, headers, ...rest } = request;
    this.post({ kind: 'request', id, request: { ...rest, route, query: query.toString(), headers: { ...headers }, body } });
    return new Promise((resolve) => this.replies.set(id, resolve));
  }

  ask(question: Question): Promise<unknown> {
    const id = this.nextId++;
    this.post({ kind: 'ask', id, question });
    return new Promise((resolve, reject) => this.answers.set(id, { resolve, reject }));
  }

  metrics(): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
    return this.ask({ op: 'metrics' }) as Promise<MetricObjectWithValues<MetricValue<string>>[]>;
  }

  apiKeyUsed(pk: string, at: string): void {
    this.post({ kind: 'apiKeyUsed', pk, at });
  }

  /** A reply or an answer of the conveyor thread. */
  received(message: ToHttpThread): void {
    if (message.kind === 'reply') {
      const resolve = this.replies.get(message.id);
      this.replies.delete(message.id);
      resolve?.(replyOf(message.reply));
    } else if (message.kind === 'answer') {
      const waiting = this.answers.get(message.id);
      this.answers.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.value);
    }
  }

  private post(message: ToConveyor): void {
    this.port.postMessage(message);
  }
}

/** A reply as it crossed: its bytes a Buffer again. */
function replyOf(wire: WireReply): Reply {
  const { raw, ...rest } = wire;
  return raw ? { ...rest, raw: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) } : rest;
}
