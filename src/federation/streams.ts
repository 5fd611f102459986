import type { JetStreamManager } from '@nats-io/jetstream';
import type { FederationConfig } from './config.ts';
import type { JetStreamLib } from '../nats/connect.ts';
import type { SiteNames } from './names.ts';

// The hall's streams and the commands consumer, created when absent (file storage,
// the limits of the config). Streams that exist are left as they are: an integrator
// who changed limits with the `nats` tool keeps them.

const DAY_MS = 86_400_000;
/** The commands stream holds at most this many bytes (or the hall stream's limit, if lower). */
const COMMAND_STREAM_MAX_BYTES = 256 * 1024 * 1024;
/** JetStream durations are nanoseconds. */
const nanos = (ms: number) => ms * 1_000_000;

/** Creates what is missing; returns the names of what it created (for the log). */
export async function ensureStreams(lib: JetStreamLib, jsm: JetStreamManager, names: SiteNames, config: FederationConfig): Promise<string[]> {
  const created: string[] = [];
  const limits = {
    storage: lib.StorageType.File,
    max_age: nanos(config.stream.maxAgeDays * DAY_MS),
    max_bytes: config.stream.maxBytes,
    duplicate_window: nanos(config.stream.duplicateWindowSeconds * 1000),
    num_replicas: config.stream.replicas,
    discard: lib.DiscardPolicy.Old,
  };
  if (!(await exists(lib, jsm, names.stream))) {
    await jsm.streams.add({
      name: names.stream,
      subjects: [names.eventSubjects, names.resultSubjects],
      description: `Events of the warehouse appliance of ${names.site}, in event-id order`,
      ...limits,
    });
    created.push(names.stream);
  }
  if (config.commands) {
    if (!(await exists(lib, jsm, names.commandStream))) {
      // Commands are few and small; JetStream sets a stream's max_bytes aside on disk in full.
      const commandLimits = { ...limits, max_bytes: Math.min(limits.max_bytes, COMMAND_STREAM_MAX_BYTES) };
      await jsm.streams.add({
        name: names.commandStream,
        subjects: [names.commandSubjects],
        description: `Commands of the hub to the warehouse appliance of ${names.site}`,
        ...commandLimits,
      });
      created.push(names.commandStream);
    }
    try {
      await jsm.consumers.info(names.commandStream, names.consumer);
    } catch (err) {
      if (!(err instanceof lib.JetStreamApiError) || err.code !== lib.JetStreamApiCodes.ConsumerNotFound) throw err;
      await jsm.consumers.add(names.commandStream, {
        durable_name: names.consumer,
        ack_policy: lib.AckPolicy.Explicit,
        deliver_policy: lib.DeliverPolicy.All,
        // A command that is not acknowledged in time (the box stopped half-way) comes again.
        ack_wait: nanos(30_000),
        // One command at a time: a command that must come again is not overtaken by the next.
        max_ack_pending: 1,
        description: 'The warehouse appliance takes the hub commands in order',
      });
      created.push(`${names.commandStream}/${names.consumer}`);
    }
  }
  return created;
}

async function exists(lib: JetStreamLib, jsm: JetStreamManager, stream: string): Promise<boolean> {
  try {
    await jsm.streams.info(stream);
    return true;
  } catch (err) {
    if (err instanceof lib.JetStreamApiError && err.code === lib.JetStreamApiCodes.StreamNotFound) return false;
    throw err;
  }
}
