import type { Db } from '../src/core/db.ts';
import type { Logger } from '../src/core/log.ts';
import type { UnitOfWork } from '../src/core/unit-of-work.ts';
import type { CachedReply, ResendKeeper } from './osip/resends.ts';

// The duplicate cache of a box of a pair, in the database (table plc_resends, docs/ha.md
// "The PLC"): every batch's telegrams and their replies in a unit of work of their own,
// so that they travel to the standby in the change log like any other commit. A ring of
// RING slots per channel; a box alone keeps the cache in memory only (plc/osip/resends.ts).

const RING = 32;

export class DatabaseResendKeeper implements ResendKeeper {
  private readonly work: UnitOfWork;
  private readonly put: { run(row: Record<string, unknown>): unknown };
  private readonly read: { all(channel: string): { slot: number; sender: string; seq: number; payload: string; at: number; replies: string }[] };
  /** Per channel: the slot the next telegram takes. */
  private readonly next = new Map<string, number>();

  private readonly log: Logger;

  private readonly db: Db;

  constructor(db: Db, work: UnitOfWork, log: Logger) {
    this.db = db;
    this.work = work;
    this.log = log;
    this.put = db.prepare(
      `INSERT INTO plc_resends (channel, slot, sender, seq, payload, at, replies) VALUES (@channel, @slot, @sender, @seq, @payload, @at, @replies)
       ON CONFLICT (channel, slot) DO UPDATE SET sender = excluded.sender, seq = excluded.seq, payload = excluded.payload, at = excluded.at, replies = excluded.replies`,
    );
    this.read = db.prepare('SELECT slot, sender, seq, payload, at, replies FROM plc_resends WHERE channel = ? ORDER BY at, slot') as never;
  }

  keep(channel: string, telegrams: readonly { entry: CachedReply; texts: readonly string[] }[]): void {
    let slot = this.next.get(channel) ?? 0;
    try {
      // Without a flush of its own: the answers wait for this commit's entry to be stored on
      // the pair's quorum, which is what keeps it, and the batch's own commit (flushed)
      // came before. A power cut of this box alone loses at most these rows, which the
      // standby has. Half the flushes of a PLC batch on a box of a pair.
      this.db.pragma('synchronous = OFF');
      this.work.run(() => {
        for (const { entry, texts } of telegrams) {
          this.put.run({ channel, slot, sender: entry.sender, seq: entry.seq, payload: entry.payload, at: entry.at, replies: JSON.stringify(texts) });
          slot = (slot + 1) % RING;
        }
      });
      this.next.set(channel, slot);
    } catch (err) {
      // The answers go out all the same: a resend after a failover would be decided again.
      this.log.error({ err, channel }, 'the duplicate cache could not be kept in the database');
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  load(channel: string): CachedReply[] {
    const rows = this.read.all(channel);
    // The newest row's slot is the last one taken: the next goes after it.
    const newest = rows.at(-1);
    this.next.set(channel, newest ? (newest.slot + 1) % RING : 0);
    return rows.map((row) => ({
      sender: row.sender,
      seq: row.seq,
      payload: row.payload,
      at: row.at,
      replies: (JSON.parse(row.replies) as string[]).map((text) => ({ text })),
    }));
  }
}
