import Database from 'better-sqlite3';
import type { Db } from '../core/db.ts';
import type { Logs, RefRow } from '../core/log-store/index.ts';

// The logs database (telegrams, signals, the event index) as the HTTP thread has it:
// a read-only connection of its own, and the conveyor thread, which hands the rows to
// the writer, asked to sync first so that a read sees every row handed over so far.
// Writing happens on the conveyor thread only.

export class LogReader implements Logs {
  readonly reader: Db;
  readonly indexedAtStart: number;
  private readonly syncOnConveyor: () => Promise<void>;

  constructor(file: string, nativeBinding: string | undefined, indexedAtStart: number, syncOnConveyor: () => Promise<void>) {
    this.reader = new Database(file, { readonly: true, fileMustExist: true, nativeBinding });
    this.indexedAtStart = indexedAtStart;
    this.syncOnConveyor = syncOnConveyor;
  }

  sync(): Promise<void> {
    return this.syncOnConveyor();
  }

  addTelegram(_row: unknown[]): void {
    throw onConveyor('addTelegram');
  }

  addRefs(_rows: readonly RefRow[]): void {
    throw onConveyor('addRefs');
  }

  pruneTelegrams(): Promise<number> {
    return Promise.reject(onConveyor('pruneTelegrams'));
  }

  pruneRefs(): Promise<number> {
    return Promise.reject(onConveyor('pruneRefs'));
  }

  resetRefs(): Promise<number> {
    return Promise.reject(onConveyor('resetRefs'));
  }

  close(): void {
    this.reader.close();
  }
}

/** A write reached from a request the HTTP thread runs: its route belongs on the conveyor thread. */
function onConveyor(what: string): Error {
  return new Error(`the logs database is written on the conveyor thread only (${what}); the route that got here must run there (Route.thread)`);
}
