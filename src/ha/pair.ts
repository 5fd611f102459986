import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import type { Config } from '../config.ts';
import { cachesOver } from '../core/cache.ts';
import { createLogger, stdoutDestination, type Logger } from '../core/log.ts';
import { sqliteBinding } from '../core/native.ts';
import { ServerDeclined } from '../http/errors.ts';
import { startAppliance, type Appliance } from '../main.ts';
import type { AppOptions } from '../modules/module.ts';
import { connectOptions, loadNats, type NatsConnection, type NatsLibraries } from '../nats/connect.ts';
import { attachActive } from './active.ts';
import { ensureChangeLog, type ChangeLogNames } from './change-log.ts';
import { fetchCopy, serveCopies } from './copy.ts';
import { fence } from './fence.ts';
import { StandbyFollower } from './follower.ts';
import { openLeaseStore } from './kv-store.ts';
import { Lease, type LeaseChange, type LeaseStore } from './lease.ts';
import { followsFrom, readPosition } from './position.ts';
import type { PairRole, PairStatus } from './status.ts';

// One box of a pair (docs/ha.md): the roles it takes and the order of each change. The
// appliance (src/main.ts) is started once for each role and closed before the next, so
// a role begins with every cache and counter read from the database as it then stands.
//
//   starting ─▶ standby ──(lease taken)──▶ taking-over ─▶ active
//      │   ▲                                                 │
//      ▼   │                            (lease lost, or an entry not stored)
//   joining ◀──────────── starting ◀──── stepping-down ◀─────┘
//
// A box whose database cannot go on from the change log (position.ts) joins: it fetches a
// copy of the active's (copy.ts) and follows from where the copy ends. Only a standby
// that follows the log may take the lease, and the first box of a new pair (no position,
// an empty log, no holder) may, as its origin.

export class Pair {
  private readonly config: Config;
  private readonly options: PairOptions;
  readonly log: Logger;
  private readonly file: string;
  private lib!: NatsLibraries;
  private nc!: NatsConnection;
  private js!: JetStreamClient;
  private jsm!: JetStreamManager;
  private names!: ChangeLogNames;
  private store!: LeaseStore;
  private lease!: Lease;
  private role: PairRole = 'starting';
  private since = new Date().toISOString();
  private origin = false;
  private follower: StandbyFollower | undefined;
  private current: Appliance | undefined;
  private copies: Subscription | undefined;
  private lastFailover: PairStatus['lastFailover'];
  private problem: string | undefined;
  private steps: Promise<void> = Promise.resolve();
  private closing = false;
  /** The appliance runs as active: what it committed may wait for the change log. */
  private acting = false;
  private readonly fenced: (reason: string) => void;

  constructor(config: Config, options: PairOptions) {
    this.config = config;
    this.options = options;
    this.fenced = options.fenced ?? ((reason) => this.exitFenced(reason));
    this.log = createLogger({ level: config.log.level, destination: options.logDestination ?? stdoutDestination() }).child({
      pair: config.ha.pair,
      node: config.ha.node,
    });
    this.file = path.join(path.resolve(config.storage.dataDir), config.storage.file);
  }

  /** The appliance in this box's present role; undefined between two roles and while joining. */
  get appliance(): Appliance | undefined {
    return this.current;
  }

  async start(): Promise<void> {
    const ha = this.config.ha;
    this.lib = await loadNats();
    this.nc = await this.lib.nats.connect(connectOptions(this.lib.nats, ha.nats, `wms-ha-${ha.node!}`));
    this.js = this.lib.js.jetstream(this.nc, { timeout: Math.max(2000, ha.leaseTtlMs) });
    this.jsm = await this.lib.js.jetstreamManager(this.nc);
    this.names = await ensureChangeLog(this.lib.js, this.jsm, ha.pair!);
    this.store = await openLeaseStore(this.lib, this.nc, ha.pair!, Math.floor(ha.leaseTtlMs / 4));
    this.lease = new Lease({
      store: this.store,
      node: ha.node!,
      ttlMs: ha.leaseTtlMs,
      url: this.config.server.publicUrl,
      mayTake: () => this.role === 'standby' && !this.problem && (this.origin || this.follower !== undefined),
      onChange: (change) => this.leaseChanged(change),
      onError: (err, doing) => this.log.debug({ err }, doing),
    });
    await this.settle();
    this.lease.start();
  }

  status(): PairStatus {
    const lease = this.lease?.status();
    const position = this.follower?.position;
    return {
      pair: this.config.ha.pair!,
      node: this.config.ha.node!,
      role: this.role,
      since: this.since,
      lease: {
        holder: lease?.role === 'holder' ? this.config.ha.node : lease?.holder,
        holderUrl: lease?.role === 'holder' ? this.config.server.publicUrl : lease?.holderUrl,
        term: lease?.term,
        revision: lease?.revision,
        validForMs: lease?.role === 'holder' ? lease.validForMs : undefined,
        reachable: lease ? (lease.role === 'holder' ? true : lease.reachable) : false,
      },
      replication: {
        appliedSeq: position?.streamSeq ?? 0,
        term: position?.term ?? 0,
        lastSeq: position && this.follower ? position.streamSeq + this.follower.lag.entries : undefined,
        lagEntries: this.follower?.lag.entries,
      },
      lastFailover: this.lastFailover,
      problem: this.problem,
    };
  }

  /** Stops: an active answers what it has under way, then gives the lease up (the other box takes over at once). */
  async close(): Promise<void> {
    this.closing = true;
    await this.steps;
    await this.follower?.stop();
    this.copies?.unsubscribe();
    await this.current?.close();
    this.current = undefined;
    await this.lease?.stop(true);
    await this.nc?.close();
  }

  private enqueue(step: () => Promise<void>): void {
    this.steps = this.steps.then(step).catch((err: unknown) => this.log.error({ err }, 'a change of role failed'));
  }

  private become(role: PairRole): void {
    this.role = role;
    this.since = new Date().toISOString();
    this.log.info({ role }, `this box is now ${role}`);
  }

  private leaseChanged(change: LeaseChange): void {
    if (this.closing) return;
    this.log.warn({ holds: change.holds, term: change.term, reason: change.reason }, change.holds ? 'took the lease' : 'lost the lease');
    this.enqueue(() => (change.holds ? this.takeOver(change.term!) : this.stepDown(change.reason)));
  }

  /**
   * Standby when this box's database can follow the log; its origin when it is the pair's
   * first; otherwise joining. Tried again until the cluster answers (its node may be down).
   */
  private async settle(): Promise<void> {
    this.become('starting');
    this.origin = false;
    for (let attempt = 0; !this.closing; attempt++) {
      try {
        return await this.settleOnce();
      } catch (err) {
        this.problem = `starting: ${(err as Error).message}`;
        if (attempt % 10 === 0) this.log.warn({ err }, 'cannot tell where this box stands in the pair yet (its NATS node?); trying again');
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private async settleOnce(): Promise<void> {
    const position = readPosition(this.file, sqliteBinding(path.dirname(this.file)));
    if (position && (await followsFrom(this.jsm, this.names, position))) return this.standby();
    const info = await this.jsm.streams.info(this.names.stream);
    const lease = await this.store.get();
    if (!position && info.state.last_seq === 0 && (!lease?.value || lease.value.released)) {
      // The pair's first box: its database (empty, or a single box's that joins a pair) is the truth.
      this.origin = true;
      this.problem = undefined;
      this.become('standby');
      return;
    }
    return this.join();
  }

  private async standby(): Promise<void> {
    const appliance = await startAppliance(this.config, {
      ...this.options,
      pair: { role: 'standby', refusal: () => this.refusal(), status: () => this.status() },
    });
    this.current = appliance;
    const users = appliance.module('users');
    this.follower = new StandbyFollower({
      db: appliance.db,
      js: this.js,
      names: this.names,
      // Rows were written past the caches: what they hold may be old.
      applied: () => {
        cachesOver(appliance.db).clearAll();
        users.invalidatePrincipals();
      },
      failed: (error, streamSeq) => {
        this.problem = `entry ${streamSeq} of the change log cannot be applied: ${(error as Error).message}`;
        this.log.error({ err: error, streamSeq }, 'the standby stopped following the change log');
      },
    });
    await this.follower.start();
    this.problem = undefined;
    this.become('standby');
  }

  /** Fetches a copy of the active's database, puts it in place, and follows from where it ends. */
  private async join(): Promise<void> {
    this.become('joining');
    for (let attempt = 0; !this.closing; attempt++) {
      try {
        const joining = `${this.file}.joining`;
        const copy = await fetchCopy(this.nc, this.config.ha.pair!, joining, 600_000);
        // What this box had is kept beside, never overwritten in place.
        const had = existsSync(this.file);
        for (const suffix of ['', '-wal', '-shm']) if (existsSync(this.file + suffix)) renameSync(this.file + suffix, `${this.file}.before-join${suffix}`);
        renameSync(joining, this.file);
        this.log.warn(
          { copy: copy.name, bytes: copy.size, kept: had ? `${this.file}.before-join` : undefined },
          had
            ? 'this box joined the pair from a copy of the active; the database it had is kept beside it'
            : 'this box joined the pair from a copy of the active',
        );
        const position = readPosition(this.file, sqliteBinding(path.dirname(this.file)));
        if (position && (await followsFrom(this.jsm, this.names, position))) return this.standby();
        throw new Error('the copy ends at an entry the change log does not hold');
      } catch (err) {
        this.problem = `joining: ${(err as Error).message}`;
        if (attempt % 10 === 0) this.log.warn({ err }, 'no copy of the active yet; trying again');
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private async takeOver(term: number): Promise<void> {
    if (this.role !== 'standby' || this.closing) return;
    this.become('taking-over');
    const after = await fence(this.js, this.names, term, this.lease, () => (this.origin ? undefined : this.follower!.position.streamSeq));
    if (after === undefined) return; // the lease was lost meanwhile, or the log is ahead of an origin: stepDown follows
    await this.follower?.stop();
    this.follower = undefined;
    await this.current?.close(0);
    this.current = undefined;
    const ha = this.config.ha;
    this.current = await startAppliance(this.config, {
      ...this.options,
      pair: {
        role: 'active',
        status: () => this.status(),
        attach: (db) =>
          attachActive({
            db,
            js: this.js,
            names: this.names,
            after,
            term,
            holds: () => this.lease.holds(),
            broken: (error) => {
              this.log.error({ err: error }, 'an entry of the change log could not be stored: this box acknowledges nothing more');
              this.enqueue(() => this.stepDown('an entry could not be stored'));
            },
            log: this.log,
          }),
      },
    });
    this.copies = serveCopies(this.nc, ha.pair!, this.current.module('backups'), (err) => this.log.warn({ err }, 'a copy for a joining box failed'));
    this.lastFailover = { at: new Date().toISOString(), node: ha.node!, term };
    this.origin = false;
    this.acting = true;
    this.become('active');
  }

  private async stepDown(reason: string): Promise<void> {
    if ((this.role !== 'active' && this.role !== 'taking-over') || this.closing) return;
    this.become('stepping-down');
    this.log.warn({ reason }, 'stepping down');
    // An active ends its process: whatever waits for the change log (replies, PLC answers,
    // events, the hub) then never leaves, and the service starts the box again as standby.
    if (this.acting) return this.fenced(reason);
    this.copies?.unsubscribe();
    this.copies = undefined;
    if (this.lease.holds()) {
      // An entry could not be stored: give the lease up for the other box and take part again.
      await this.lease.stop(true);
      this.lease.start();
    }
    await this.current?.close(0);
    this.current = undefined;
    await this.settle();
  }

  /**
   * The active's way out once it may no longer act (docs/ha.md, "Stepping down"): it ends
   * the process. Nothing of the appliance runs after this line, so nothing it committed
   * and could not store is acknowledged; the service starts it again (Restart=always),
   * and the start finds where its database stands: following the log, or joining.
   */
  private exitFenced(reason: string): void {
    this.log.fatal({ reason }, 'this box no longer holds the lease: it ends now, acknowledging nothing more, and starts again as standby');
    this.log.flush();
    process.exit(EXIT_STEPPED_DOWN);
  }

  private refusal(): ServerDeclined {
    const status = this.lease?.status();
    const active =
      status?.role === 'follower' && status.holder ? `the active box ${status.holder}${status.holderUrl ? ` (${status.holderUrl})` : ''}` : 'the active box';
    const retry = String(Math.ceil(this.config.ha.leaseTtlMs / 1000));
    return new ServerDeclined(503, `This box is the standby of pair ${this.config.ha.pair!}: writes go to ${active}`, { 'Retry-After': retry });
  }
}

/** How a process that stepped down as active ends (EX_TEMPFAIL: the service starts it again). */
export const EXIT_STEPPED_DOWN = 75;

export interface PairOptions extends AppOptions {
  /** What an active that may no longer act does; by default it ends the process (EXIT_STEPPED_DOWN). */
  fenced?: (reason: string) => void;
}

/** Starts this box as one of a pair (`ha.pair` set): in the role the pair gives it. */
export async function startPair(config: Config, options: PairOptions = {}): Promise<Pair> {
  const pair = new Pair(config, options);
  try {
    await pair.start();
  } catch (err) {
    await pair.close().catch(() => undefined);
    throw err;
  }
  return pair;
}
