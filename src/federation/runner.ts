import { asActor, type Actor } from '../core/actor.ts';
import { DomainError, validationError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import { ServerDeclined } from '../http/errors.ts';
import { declined, type InternalReply, type InternalRequest } from '../http/invoke.ts';
import type { MessageKeyFamily } from '../http/errors.ts';
import { execute, MalformedCommand, parseCommand, type Command } from './commands.ts';
import type { FederationStore } from './store.ts';

// Runs the hub's commands (docs/federation.md, "Commands"): as the actor `hub`, in one
// unit of work with the record of its answer, so a command is either done and
// remembered or neither. The answer is an event of the log (`hubCommand.answered`),
// which the export publishes on `wms.<site>.results.<commandId>` in its place among
// the events. A command already answered is not run again: its first answer is
// repeated. A malformed one is answered with the error and never run; it is not
// remembered (sent again corrected, it runs), nor is an answer of status 500 or more (a
// failure of the appliance, not of the command: sent again, it runs again).

export const HUB: Actor = Object.freeze({ kind: 'hub', name: 'hub' });

interface CommandCounters {
  /** Commands run that succeeded. */
  done: number;
  /** Commands run that the API declined (nothing of them kept). */
  declined: number;
  /** Commands delivered again and answered from memory. */
  repeated: number;
  /** Messages that were not a command (not JSON, no commandId, unknown kind). */
  malformed: number;
}

interface RunnerDeps {
  work: UnitOfWork;
  store: FederationStore;
  /** Runs an internal request of the API (http/invoke.ts). */
  call: (request: InternalRequest, requestId: string) => InternalReply;
  messageKeys: MessageKeyFamily;
  /** The largest command taken, as a REST request's body (server.bodyLimitBytes). */
  bodyLimitBytes: number;
  log: Logger;
}

/** A reply the API declined: thrown to undo what the command did before it. */
class Declined extends Error {
  readonly reply: InternalReply;
  constructor(reply: InternalReply) {
    super('declined');
    this.reply = reply;
  }
}

export class CommandRunner {
  private readonly deps: RunnerDeps;
  readonly counters: CommandCounters = { done: 0, declined: 0, repeated: 0, malformed: 0 };

  constructor(deps: RunnerDeps) {
    this.deps = deps;
  }

  /**
   * Resolves once what the commands handled so far committed is on disk: a command is
   * acknowledged to the stream only then (a power cut must not lose a command the hub
   * will not send again).
   */
  flushed(): Promise<void> {
    return this.deps.work.flushed();
  }

  /** Handles one message of `wms.<site>.commands.<kind>`; `sequence` names it when it has no commandId. */
  handle(kind: string, payload: Uint8Array, sequence: number): void {
    asActor(HUB, () => {
      if (payload.length > this.deps.bodyLimitBytes) {
        // The limit a REST request's body has.
        this.counters.malformed++;
        const message = `The command has ${payload.length} bytes; at most ${this.deps.bodyLimitBytes} are taken (server.bodyLimitBytes)`;
        this.answer(`unnamed-${sequence}`, kind, declined(this.deps, new ServerDeclined(413, message), kind, `unnamed-${sequence}`), false);
        return;
      }
      let command: Command;
      try {
        command = parseCommand(kind, payload);
      } catch (err) {
        if (!(err instanceof MalformedCommand)) throw err;
        if (err.commandId !== undefined && this.repeat(err.commandId)) return;
        this.counters.malformed++;
        const commandId = err.commandId ?? `unnamed-${sequence}`;
        this.answer(commandId, kind, declined(this.deps, validationError(`Validation failed: ${err.message}`), kind, commandId), false);
        return;
      }
      if (!this.repeat(command.commandId)) this.run(command);
    });
  }

  /** Repeats the first answer of a command answered before; false when it was not. */
  private repeat(commandId: string): boolean {
    const before = this.deps.store.answered(commandId);
    if (!before) return false;
    this.counters.repeated++;
    this.deps.work.run(() => this.emit(commandId, before.kind, before.status, before.answer, true));
    return true;
  }

  private run(command: Command): void {
    const { work, call } = this.deps;
    const requestId = command.commandId;
    try {
      work.run(() => {
        const reply = execute(command, (request) => call(request, requestId));
        if (reply.status >= 400) throw new Declined(reply);
        this.remember(command.commandId, command.kind, reply);
      });
      this.counters.done++;
    } catch (err) {
      const reply = err instanceof Declined ? err.reply : declined(this.deps, err, command.kind, requestId);
      if (!(err instanceof Declined) && !(err instanceof DomainError)) this.deps.log.error({ err, commandId: command.commandId }, 'hub command failed');
      this.counters.declined++;
      this.answer(command.commandId, command.kind, reply, reply.status < 500);
    }
  }

  /** Answers in a unit of work of its own (what the command did, if anything, is undone). */
  private answer(commandId: string, kind: string, reply: InternalReply, remember: boolean): void {
    this.deps.work.run(() => {
      if (remember) this.remember(commandId, kind, reply);
      else this.emit(commandId, kind, reply.status, reply.body, false);
    });
  }

  private remember(commandId: string, kind: string, reply: InternalReply): void {
    this.deps.store.remember({ commandId, kind, status: reply.status, answer: reply.body });
    this.emit(commandId, kind, reply.status, reply.body, false);
  }

  private emit(commandId: string, kind: string, status: number, body: unknown, repeated: boolean): void {
    this.deps.work.emit({ type: 'hubCommand.answered', key: commandId, data: { commandId, kind, status, ok: status < 400, body, repeated } });
  }
}
