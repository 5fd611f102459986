import { existsSync, renameSync } from 'node:fs';
import type { Logger } from '../core/log.ts';
import type { NatsConnection } from '../nats/connect.ts';
import { fetchCopy } from './copy.ts';

// A box that joins the pair (docs/ha.md, "Rejoin"): a copy of the active's database in
// place of its own. What it had is kept beside it (`<file>.before-join`, with its
// write-ahead log), never overwritten in place: a box set up as a pair by mistake with
// data of its own loses nothing that cannot be looked at again.

/** How long the active may take to copy its database (a million locations: well under a minute). */
const TAKE_TIMEOUT_MS = 600_000;

export async function putCopyInPlace(nc: NatsConnection, pair: string, file: string, log: Logger): Promise<void> {
  const joining = `${file}.joining`;
  const copy = await fetchCopy(nc, pair, joining, TAKE_TIMEOUT_MS);
  const had = existsSync(file);
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, `${file}.before-join${suffix}`);
  renameSync(joining, file);
  log.warn(
    { copy: copy.name, bytes: copy.size, kept: had ? `${file}.before-join` : undefined },
    had ? 'this box joined the pair from a copy of the active; the database it had is kept beside it' : 'this box joined the pair from a copy of the active',
  );
}
