import { open as openFile, rename, rm } from 'node:fs/promises';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { BackupService } from '../modules/backups/service.ts';

// A copy of the active's database for a box that cannot follow the change log (a fresh
// box, a former active with commits the log never stored; docs/ha.md, "Rejoin"). The
// active takes an online backup (the backups module's: it runs in small steps between
// the conveyor thread's other work, and it is listed with the other backups), and the
// joining box reads it in pieces over the pair's NATS cluster. The file is read with the
// event loop's file system calls, off the conveyor thread.

/** The subject the active answers copy requests on. */
export function copySubject(pair: string): string {
  return `wms.ha.${pair}.copy`;
}

/** The most a reply carries: below NATS's default payload limit (1 MiB). */
const PIECE_BYTES = 512 * 1024;

type CopyRequest = { op: 'take' } | { op: 'read'; name: string; offset: number };

/** The active's side: answers copy requests until the subscription is closed. */
export function serveCopies(nc: NatsConnection, pair: string, backups: BackupService, failed: (error: unknown) => void): Subscription {
  return nc.subscribe(copySubject(pair), {
    callback: (error, message) => {
      if (error) return failed(error);
      void (async () => {
        try {
          const request = JSON.parse(message.string()) as CopyRequest;
          if (request.op === 'take') {
            const backup = await backups.take();
            message.respond(JSON.stringify({ name: backup.name, size: backup.size }));
            return;
          }
          const file = backups.byName(request.name).file;
          const handle = await openFile(file, 'r');
          try {
            // A piece begins with a byte that says what follows: the file's bytes (0) or a refusal (1).
            const piece = Buffer.alloc(PIECE_BYTES + 1);
            const { bytesRead } = await handle.read(piece, 1, PIECE_BYTES, request.offset);
            message.respond(piece.subarray(0, bytesRead + 1));
          } finally {
            await handle.close();
          }
        } catch (err) {
          failed(err);
          const refusal = JSON.stringify({ error: (err as Error).message });
          message.respond(Buffer.concat([Buffer.from([1]), Buffer.from(refusal)]));
        }
      })();
    },
  });
}

/**
 * The joining box's side: asks the active for a copy and writes it to `target` (through
 * a `.partial` file, renamed once whole). Throws when no active answers or the copy breaks off.
 */
export async function fetchCopy(nc: NatsConnection, pair: string, target: string, takeTimeoutMs: number): Promise<{ name: string; size: number }> {
  const subject = copySubject(pair);
  const answer = (await nc.request(subject, JSON.stringify({ op: 'take' }), { timeout: takeTimeoutMs })).data;
  const taken = JSON.parse(Buffer.from(answer[0] === 1 ? answer.subarray(1) : answer).toString()) as {
    name?: string;
    size?: number;
    error?: string;
  };
  if (taken.error !== undefined || taken.name === undefined || taken.size === undefined)
    throw new Error(`the active could not take a copy: ${taken.error ?? 'no name'}`);
  const partial = `${target}.partial`;
  const out = await openFile(partial, 'w');
  try {
    let offset = 0;
    while (offset < taken.size) {
      const reply = await nc.request(subject, JSON.stringify({ op: 'read', name: taken.name, offset }), { timeout: 30_000 });
      const data = reply.data;
      if (data[0] !== 0 || data.length === 1) throw new Error(`the copy broke off at byte ${offset}: ${Buffer.from(data.subarray(1, 200)).toString()}`);
      await out.write(data, 1, data.length - 1, offset);
      offset += data.length - 1;
    }
    await out.sync();
  } finally {
    await out.close();
  }
  await rename(partial, target).catch(async (err: unknown) => {
    await rm(partial, { force: true });
    throw err;
  });
  return { name: taken.name, size: taken.size };
}
