// The changes of a signal channel's state points (docs/plc.md, "Signal channels"): those
// that arrive in one turn of the event loop (a Modbus poll's read, an OPC UA publish's
// notifications) are applied together, as a burst of OSIP telegrams is: one commit for
// the lot, each change in a savepoint of its own (the adapter's stateChanges), each
// counted and logged on the channel (channel.ts) on its own.

import type { Logger } from '../../src/core/log.ts';
import type { PlcOperations, Reporter, SightingFailed, StateOutcome, StateReport } from '../port.ts';
import type { SignalChannel, Watched } from './channel.ts';
import type { SignalValue } from './driver.ts';
import type { ChannelPoint } from './points.ts';
import { stateReportOf } from './values.ts';

/** What a change of a state point came to: the adapter's outcome, or the channel's own (`out-of-range`; `failed`: nothing kept). */
type Effect = StateOutcome | { outcome: string; location?: string | undefined };

/** A state point's value waiting for the end of this turn, to be applied with the others. */
export interface PendingChange {
  w: Watched;
  value: SignalValue;
}

export class StateChanges {
  private readonly channel: SignalChannel;
  private readonly log: Logger;
  private readonly reporter: Reporter;
  private operations: PlcOperations | undefined;
  /** The state changes of this turn, applied together in the next check phase (or before an arrival's decision). */
  private readonly pending: PendingChange[] = [];
  private applying: NodeJS.Immediate | undefined;

  constructor(options: { channel: SignalChannel; log: Logger; reporter: Reporter }) {
    this.channel = options.channel;
    this.log = options.log;
    this.reporter = options.reporter;
  }

  /** The adapter's operations the changes go through, from the channel's start on (before, nothing is applied). */
  use(operations: PlcOperations): void {
    this.operations = operations;
  }

  /** A state change, applied with the others of this turn. */
  queue(change: PendingChange): void {
    this.pending.push(change);
    // What the driver reports in this turn goes together (the check phase follows the poll phase that read it).
    this.applying ??= setImmediate(() => {
      try {
        this.applyPending();
      } catch (err) {
        this.log.error({ err }, 'signal channel: applying the changes of a poll failed');
      }
    });
  }

  /**
   * Applies the state changes waiting for the end of this turn, now: in one unit of work,
   * each change in a savepoint of its own (a failing one changes nothing and undoes none
   * of the others). Each is counted and logged on its own. An arrival calls it before its
   * decision, so that the states read before its trigger count for it.
   */
  applyPending(): void {
    if (this.applying) clearImmediate(this.applying);
    this.applying = undefined;
    const changes = this.pending.splice(0);
    if (changes.length === 0 || !this.operations) return;
    const planned = changes.map(({ w, value }): StateReport | Effect => {
      const report = stateReportOf(w.point, value);
      if ('why' in report) this.channel.error(w.point.id, new Error(report.why));
      return report;
    });
    const reports = planned.filter((r): r is StateReport => !('outcome' in r));
    const done = reports.length > 0 ? this.apply(reports) : [];
    let next = 0;
    changes.forEach(({ w, value }, i) => {
      const plan = planned[i]!;
      const result = 'outcome' in plan ? plan : this.settled(w.point, value, done[next++]!);
      this.channel.outcome(result.outcome);
      if (result.outcome !== 'ok' && result.outcome !== 'failed') {
        this.log.warn({ point: w.point.id, value, outcome: result.outcome }, 'signal channel: a change changed nothing');
      }
      this.channel.logged({ direction: 'in', point: w.point.id, address: w.address, value, outcome: result.outcome, location: result.location });
    });
  }

  /** The reports through the adapter, together: one commit for the lot. */
  private apply(reports: readonly StateReport[]): (StateOutcome | SightingFailed)[] {
    return this.operations!.stateChanges(reports, this.reporter);
  }

  /** A change's result as the channel counts it: an internal failure is `failed` (nothing of it kept). */
  private settled(point: ChannelPoint, value: SignalValue, result: StateOutcome | SightingFailed): Effect {
    if (result.outcome !== 'internal') return result;
    this.channel.counters.effectErrors++;
    // Without an error the batch's commit failed, which the adapter logged once.
    if ('error' in result)
      this.log.error({ err: result.error, point: point.id, value }, 'signal channel: a change could not be applied; nothing of it was kept');
    return { outcome: 'failed' };
  }
}
