import type { Logger } from '../../../src/core/log.ts';
import { batchAddress, type Batch } from './batches.ts';

// The reads of a poll that fail while the device answers (a Modbus exception: it refuses
// the address; or no answer in time), logged once when a read starts failing or fails
// for another reason, and once when it answers again: a refused address fails at every
// poll, ten times a second, and must neither flood the log nor go unsaid. Every failure
// is still an error of its points (the channel's errors and counters).

interface Failing {
  reason: string;
  polls: number;
}

export class FailingReads {
  private readonly log: Logger;
  private readonly failing = new Map<Batch, Failing>();

  constructor(log: Logger) {
    this.log = log;
  }

  /** A batch read failed; logged when it starts failing, or fails otherwise than before. */
  failed(batch: Batch, err: Error): void {
    const known = this.failing.get(batch);
    if (known && known.reason === err.message) {
      known.polls++;
      return;
    }
    this.failing.set(batch, { reason: err.message, polls: 1 });
    this.log.warn(
      { address: batchAddress(batch), points: batch.members.map((m) => m.id), exception: exceptionOf(err), reason: err.message },
      `Modbus: reading ${batchAddress(batch)} fails (${err.message}); its points get no value until it answers (logged again when it does)`,
    );
  }

  /** A batch read was answered; logged when it had been failing. */
  answered(batch: Batch): void {
    const known = this.failing.get(batch);
    if (!known) return;
    this.failing.delete(batch);
    this.log.info(
      { address: batchAddress(batch), points: batch.members.map((m) => m.id), failedPolls: known.polls },
      `Modbus: reading ${batchAddress(batch)} is answered again after ${known.polls} failed polls`,
    );
  }

  /** A batch no longer read (split into its points): nothing more to say of it. */
  forget(batch: Batch): void {
    this.failing.delete(batch);
  }
}

/** The Modbus exception code of a refusal by the device (2: illegal data address), undefined for other failures. */
export function exceptionOf(err: unknown): number | undefined {
  const code = (err as { modbusCode?: unknown })?.modbusCode;
  return typeof code === 'number' ? code : undefined;
}
