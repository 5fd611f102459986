import type { Statement } from 'better-sqlite3';
import type { Logs } from '../src/core/log-store/index.ts';
import { scanById, type ScanResult } from '../src/core/paging.ts';
import { firstIdAt } from '../src/core/retention.ts';
import type { TelegramLogEntry } from './channel.ts';
import { decode, type OsipOptions } from './osip/index.ts';

// The durable telegram log: every telegram received and sent on every channel, in the
// logs database (src/core/log-store/schema.ts, table telegram_log).
//
// Writing costs the thread that answers the PLCs nothing but handing the entry over:
// the log writer thread inserts them, in batches, off the conveyor's way and without a
// flush of the appliance's database. A read first waits until everything handed over
// is written, so it sees every telegram handled so far. A power cut may cost the last
// moments of the log, never a booked unit.
//
// Decoded fields are not stored: they are decoded from the text when read.

export interface TelegramRecord {
  id: number;
  at: string;
  channel: string;
  direction: 'in' | 'out';
  type: string | null;
  seq: number | null;
  text: string;
  outcome: string;
  barcode: string | null;
  location: string | null;
  order: string | null;
  latencyMs: number | null;
  connection: number | null;
}

interface Row {
  id: number;
  at: string;
  channel: string;
  direction: 'in' | 'out';
  type: string | null;
  seq: number | null;
  text: string;
  outcome: string;
  barcode: string | null;
  location: string | null;
  order_pk: string | null;
  latency_ms: number | null;
  connection: number | null;
}

interface TelegramQuery {
  channel?: string | undefined;
  direction?: 'in' | 'out' | undefined;
  type?: string | undefined;
  barcode?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

const COLUMNS = 'id, at, channel, direction, type, seq, text, outcome, barcode, location, order_pk, latency_ms, connection';

const toRecord = (row: Row): TelegramRecord => ({
  id: row.id,
  at: row.at,
  channel: row.channel,
  direction: row.direction,
  type: row.type,
  seq: row.seq,
  text: row.text,
  outcome: row.outcome,
  barcode: row.barcode,
  location: row.location,
  order: row.order_pk,
  latencyMs: row.latency_ms,
  connection: row.connection,
});

/** The telegram type and sequence number of a frame, when its header can be read. */
function headerOf(text: string): { type: string | null; seq: number | null } {
  const seqText = text.slice(18, 23);
  const type = text.slice(23, 27);
  return { seq: /^\d{5}$/.test(seqText) ? Number(seqText) : null, type: /^[A-Z_]{4}$/.test(type) ? type : null };
}

export class TelegramLog {
  private readonly store: Logs;
  private readonly oldest: Statement;
  private readonly newest: Statement;
  private readonly firstFrom: Statement;
  private readonly byBarcode: Statement;
  private readonly statements = new Map<string, Statement>();

  constructor(store: Logs) {
    this.store = store;
    const reader = store.reader;
    this.oldest = reader.prepare('SELECT min(id) FROM telegram_log').pluck();
    this.newest = reader.prepare('SELECT max(id) FROM telegram_log').pluck();
    this.firstFrom = reader.prepare('SELECT id, at FROM telegram_log WHERE id >= ? ORDER BY id LIMIT 1');
    this.byBarcode = reader.prepare(`SELECT ${COLUMNS} FROM telegram_log WHERE barcode = ? AND id > ? ORDER BY id LIMIT ?`);
  }

  /** Keeps an entry of a channel (handed to the log writer thread). */
  record(channel: string, entry: TelegramLogEntry): void {
    const { type, seq } = headerOf(entry.text);
    this.store.addTelegram([
      entry.at,
      channel,
      entry.direction,
      type,
      seq,
      entry.text,
      entry.outcome,
      entry.barcode ?? null,
      entry.location ?? null,
      entry.order ?? null,
      entry.latencyMs ?? null,
      entry.connection ?? null,
    ]);
  }

  /** A page of the log, oldest first: entries with id > `after` matching the query. */
  async page(query: TelegramQuery, after: number, limit: number): Promise<ScanResult<TelegramRecord>> {
    await this.store.sync();
    const where: string[] = ['id > ?', 'id <= ?'];
    const params: unknown[] = [];
    for (const [column, value] of [
      ['channel', query.channel],
      ['direction', query.direction],
      ['type', query.type],
      ['barcode', query.barcode],
    ] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    if (query.from !== undefined) {
      where.push('at >= ?');
      params.push(query.from);
    }
    if (query.to !== undefined) {
      where.push('at <= ?');
      params.push(query.to);
    }
    const statement = this.statement(`SELECT ${COLUMNS} FROM telegram_log WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`);
    const start = query.from === undefined ? after : Math.max(after, this.firstIdAt(query.from) - 1);
    const newest = (this.newest.get() as number | null) ?? 0;
    const read = (a: number, b: number, n: number) => (statement.all(a, b, ...params, n) as Row[]).map(toRecord);
    // A barcode is indexed: its rows are read directly, not window by window.
    if (query.barcode !== undefined) return this.direct(read, start, newest, limit);
    return scanById(read, (r) => r.id, { after: start, upto: newest }, limit);
  }

  private direct(read: (a: number, b: number, n: number) => TelegramRecord[], after: number, upto: number, limit: number): ScanResult<TelegramRecord> {
    const rows = read(after, upto, limit + 1);
    return rows.length > limit ? { items: rows.slice(0, limit), next: rows[limit - 1]!.id } : { items: rows };
  }

  /** The entries that named a transport unit, after an id, oldest first (for its history). */
  async forBarcode(barcode: string, after: number, limit: number): Promise<TelegramRecord[]> {
    await this.store.sync();
    return (this.byBarcode.all(barcode, after, limit) as Row[]).map(toRecord);
  }

  /** Deletes the oldest entries beyond `maxRows` or older than `olderThan`, at most `batch` (on the writer thread); returns how many. */
  prune(olderThan: string, maxRows: number, batch: number): Promise<number> {
    return this.store.pruneTelegrams(olderThan, maxRows, batch);
  }

  private firstIdAt(iso: string): number {
    return firstIdAt(this.firstFrom, (this.oldest.get() as number | null) ?? undefined, (this.newest.get() as number | null) ?? 0, iso);
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.store.reader.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** A logged telegram with its fields (null when the text does not decode, e.g. a rejected frame). */
export type DecodedRecord = TelegramRecord & { fields: Record<string, unknown> | null };

/** A logged telegram with its fields decoded (null when the text does not decode, e.g. a rejected frame). */
export function decoded(record: TelegramRecord, options: OsipOptions | undefined): DecodedRecord {
  if (!options) return { ...record, fields: null };
  const result = decode(record.text, options);
  if (!result.ok) return { ...record, fields: null };
  return { ...record, fields: result.telegram as unknown as Record<string, unknown> };
}
