import path from 'node:path';
import type { Config } from '../config.ts';
import { createLogger, stdoutDestination, type Logger } from '../core/log.ts';
import { sqliteBinding } from '../core/native.ts';
import { ServerDeclined } from '../http/errors.ts';
import { startAppliance, type Appliance } from '../main.ts';
import type { AppOptions } from '../modules/module.ts';
import { attachActive, type ActiveOptions } from './active.ts';
import { reachPairCluster, type PairCluster } from './cluster.ts';
import type { PairPart } from './role.ts';
import type { HaConfig } from './config.ts';
import { ActiveServing } from './serving.ts';
import { joinPair, standingOf } from './joining.ts';
import { fence } from './fence.ts';
import type { AppliedPosition, StandbyFollower } from './follower.ts';
import { followingStopped, type StoppedBox } from './stopped.ts';
import { everySecond } from './retry.ts';
import { followAsStandby } from './standby.ts';
import { Lease, type LeaseChange, type LeaseOptions, type LeaseStatus } from './lease.ts';
import { beatOf, PairWatch } from './peers.ts';
import { readPosition } from './position.ts';
import { pairStatus, type PairRole, type PairStatus } from './status.ts';

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

/** How long (in lease TTLs) a box that cannot follow waits for a copy before it may rebase the log on its own database. */
const REBASE_AFTER_TTLS = 3;

const REBASE_NOTE = 'no active answers, and this box wrote the last entry of the change log: it takes over from its own database once the lease is free';

export class Pair {
  private readonly config: Config;
  private readonly options: AppOptions;
  readonly log: Logger;
  private readonly file: string;
  private cluster!: PairCluster;
  private lease!: Lease;
  private watch: PairWatch | undefined;
  private role: PairRole = 'starting';
  private since = new Date().toISOString();
  /** No follower: the log goes on from this box's database (the pair's first box, or one that rebases the log on it: rebase.ts). */
  private own: { kind: 'origin' | 'rebase'; last: number } | undefined;
  private follower: StandbyFollower | undefined;
  /** The appliance in this box's present role; undefined between two roles and while joining. Set by the pair alone. */
  appliance: Appliance | undefined;
  /** The active's answers to the other box, and a switchover's door (serving.ts). */
  private serving!: ActiveServing;
  private lastFailover: PairStatus['lastFailover'];
  /** The active: the last entry its database holds (written inside each commit with one). */
  private written: AppliedPosition | undefined;
  private problem: string | undefined;
  private steps: Promise<void> = Promise.resolve();
  /** Aborted as the box stops: every wait for the cluster ends. */
  private readonly stopping = new AbortController();
  /** The appliance runs as active: what it committed may wait for the change log. */
  private acting = false;
  /** After handing over: the lease is left to the other box until then (own clock). */
  private holdOffUntil = 0;
  private readonly fenced: (reason: string) => void;
  /** Where the follower stopped at an entry, what stopped.ts needs of this box. */
  private readonly whenStopped: StoppedBox = {
    fail: (problem) => (this.problem = problem),
    stillStopped: (problem) => this.problem === problem && this.role === 'standby' && !this.stopping.signal.aborted,
    peerSchema: () => this.watch?.peer()?.schema,
    rejoin: () => this.enqueue(async () => (this.role === 'standby' ? this.endStandby().then(() => this.join()) : undefined)),
  };

  constructor(config: Config, options: PairOptions) {
    this.config = config;
    const { fenced, ...appOptions } = options;
    this.options = appOptions;
    this.fenced = fenced ?? ((reason) => exitSteppedDown(this.log, reason));
    const destination = options.logDestination ?? stdoutDestination();
    this.log = createLogger({ level: config.log.level, destination }).child({ pair: config.ha.pair, node: config.ha.node });
    this.file = path.join(path.resolve(config.storage.dataDir), config.storage.file);
  }

  async start(): Promise<void> {
    const ha = this.config.ha;
    this.cluster = await reachPairCluster(ha, this.log, this.stopping.signal);
    this.serving = new ActiveServing(this.config, this.cluster, () => this.lease.status(), this.log);
    this.lease = pairLease(this.config, this.cluster, this.log, {
      mayTake: () =>
        this.role === 'standby' && !this.problem && (this.own !== undefined || this.follower !== undefined) && performance.now() >= this.holdOffUntil,
      onChange: (change) => this.leaseChanged(change),
    });
    // What this box tells the other once a second: where it stands.
    this.watch = new PairWatch(this.cluster.nc, this.cluster.jsm, ha.pair!, this.cluster.names.stream, () => beatOf(this.status(false)));
    this.watch.start();
    await this.settle();
    this.lease.start();
  }

  /** This box in its pair; `withPeers` false: without what it knows of the others (what it says of itself). */
  status(withPeers = true): PairStatus {
    const ha = this.config.ha;
    return pairStatus({
      pair: ha.pair!,
      node: ha.node!,
      url: this.config.server.publicUrl,
      role: this.role,
      since: this.since,
      lease: this.lease?.status(),
      position: this.follower?.position ?? this.written,
      lagEntries: this.follower?.lag.entries,
      lagMs: this.follower?.lag.ms,
      schema: this.appliance?.schema,
      lastFailover: this.lastFailover,
      problem: this.problem,
      peer: withPeers ? this.watch?.peer() : undefined,
      nodes: withPeers ? this.watch?.nodes() : undefined,
      maxLagMs: ha.maxLagMs,
    });
  }

  /** Stops: an active answers what it has under way, then gives the lease up (the other box takes over at once). */
  async close(): Promise<void> {
    this.stopping.abort();
    this.watch?.stop();
    await this.steps;
    await this.follower?.stop();
    this.serving?.stop();
    await this.appliance?.close();
    await this.serving?.closeDoor();
    this.appliance = undefined;
    await this.lease?.stop(true);
    await this.cluster?.nc.close();
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
    if (this.stopping.signal.aborted) return;
    this.log.warn({ holds: change.holds, term: change.term, reason: change.reason }, change.holds ? 'took the lease' : 'lost the lease');
    this.enqueue(() => (change.holds ? this.takeOver(change.term!, change.from) : this.stepDown(change.reason)));
  }

  /**
   * Standby when this box's database can follow the log; its origin when it is the pair's
   * first; otherwise joining. Tried again until the cluster answers (its node may be down).
   */
  private async settle(): Promise<void> {
    this.become('starting');
    this.own = undefined;
    await everySecond(
      () => this.settleOnce(),
      this.stopping.signal,
      (err, n) => {
        this.problem = `starting: ${(err as Error).message}`;
        if (n % 10 === 0) this.log.warn({ err }, 'cannot tell where this box stands in the pair yet (its NATS node?); trying again');
      },
    );
  }

  private async settleOnce(): Promise<void> {
    const standing = await standingOf(this.cluster, this.position());
    if (standing === 'follows') return this.standby();
    if (standing === 'joins') return this.join();
    this.ownDatabase({ kind: 'origin', last: 0 });
  }

  /** No follower: the log goes on from this box's database once it has the lease (a rebase asks for a copy again after a while). */
  private ownDatabase(own: NonNullable<Pair['own']>): void {
    this.own = own;
    this.problem = undefined;
    this.become('standby');
    if (own.kind === 'origin') return;
    this.log.warn({ last: own.last }, REBASE_NOTE);
    const again = () => this.enqueue(async () => (this.role === 'standby' && this.own === own ? this.settle() : undefined));
    setTimeout(again, REBASE_AFTER_TTLS * this.config.ha.leaseTtlMs).unref();
  }

  private async standby(): Promise<void> {
    const part = { role: 'standby' as const, refusal: () => standbyRefusal(this.config.ha, this.lease?.status()), status: () => this.status() };
    this.appliance = await startAppliance(this.config, { ...this.options, pair: part });
    this.follower = await followAsStandby(this.appliance, this.cluster, (error, streamSeq) => followingStopped(error, streamSeq, this.log, this.whenStopped));
    this.problem = undefined;
    this.become('standby');
  }

  /**
   * Fetches a copy of the active's database and follows from where it ends (joining.ts);
   * or, no active answering and this box the writer of the log's last entry, takes over
   * from its own database once the lease is free (rebase.ts).
   */
  private async join(): Promise<void> {
    this.become('joining');
    const done = await joinPair({
      cluster: this.cluster,
      pair: this.config.ha.pair!,
      file: this.file,
      position: () => this.position(),
      rebaseAfterMs: REBASE_AFTER_TTLS * this.config.ha.leaseTtlMs,
      log: this.log,
      stop: this.stopping.signal,
      failing: (problem) => (this.problem = problem),
    });
    if (done?.kind === 'copied') return this.standby();
    if (done?.kind === 'rebase') this.ownDatabase(done);
  }

  /** Ends the standby's part: its follower, then its appliance (nothing of it waits for the log). */
  private async endStandby(): Promise<void> {
    await this.follower?.stop();
    this.follower = undefined;
    await this.appliance?.close(0);
    this.appliance = undefined;
  }

  /** Where this box's database file stands in the change log (position.ts). */
  private position(): AppliedPosition | undefined {
    return readPosition(this.file, () => sqliteBinding(path.dirname(this.file)));
  }

  private async takeOver(term: number, from: LeaseChange['from']): Promise<void> {
    if (this.role !== 'standby' || this.stopping.signal.aborted) return;
    this.become('taking-over');
    const own = this.own;
    const after = await fence(this.cluster.js, this.cluster.names, term, this.lease, () => own?.last ?? this.follower!.position.streamSeq, own?.kind);
    if (after === undefined) return; // the lease was lost meanwhile, or the log is ahead of an origin: stepDown follows
    await this.endStandby();
    const ha = this.config.ha;
    const part = activePart(this.cluster, after, term, this.log, {
      holds: () => this.lease.holds(),
      status: () => this.status(),
      switchover: () => this.enqueue(() => this.handOver()),
      written: (position) => (this.written = position),
      broken: () => this.enqueue(() => this.stepDown('an entry could not be stored')),
    });
    this.appliance = await startAppliance(this.config, { ...this.options, pair: part });
    this.serving.start(this.appliance);
    this.lastFailover = { at: new Date().toISOString(), node: ha.node!, term, from: from?.node, planned: from?.released ?? false };
    this.own = undefined;
    this.acting = true;
    this.become('active');
  }

  /**
   * A planned switchover (docs/ha.md): a door holds what arrives (serving.ts) while the
   * appliance finishes what it has under way and the lease goes to the standby, then hands
   * it to the new active. Once the floating address moved, the door closes and this box
   * starts again as standby; it leaves the lease to the other box for two TTLs.
   */
  private async handOver(): Promise<void> {
    if (this.role !== 'active' || this.stopping.signal.aborted) return;
    this.become('stepping-down');
    this.log.warn('switchover: handing the active role to the standby');
    await this.serving.handOver(this.appliance!);
    this.appliance = undefined;
    this.acting = false;
    this.holdOffUntil = performance.now() + 2 * this.config.ha.leaseTtlMs;
    await this.lease.stop(true);
    this.lease.start();
    // Only once the address has moved does the standby take the port: it would refuse what the door takes.
    await this.serving.closeDoorOnceMoved(this.stopping.signal);
    await this.settle();
  }

  private async stepDown(reason: string): Promise<void> {
    if ((this.role !== 'active' && this.role !== 'taking-over') || this.stopping.signal.aborted) return;
    this.become('stepping-down');
    this.log.warn({ reason }, 'stepping down');
    // An active ends its process: whatever waits for the change log (replies, PLC answers,
    // events, the hub) then never leaves, and the service starts the box again as standby.
    if (this.acting) return this.fenced(reason);
    // Taking over, not acting yet: its standby part ends, and it looks again where it stands.
    await this.endStandby();
    await this.settle();
  }
}

/** The lease of this box (lease.ts): it takes it when `mayTake`, and tells every change. */
function pairLease(config: Config, cluster: PairCluster, log: Logger, on: Pick<LeaseOptions, 'mayTake' | 'onChange'>): Lease {
  const ha = config.ha;
  return new Lease({
    store: cluster.store,
    node: ha.node!,
    ttlMs: ha.leaseTtlMs,
    url: config.server.publicUrl,
    ...on,
    onError: (err, doing) => log.debug({ err }, doing),
  });
}

/** The appliance's part as active: its commits acknowledged once their entries are stored (active.ts). */
function activePart(
  cluster: PairCluster,
  after: number,
  term: number,
  log: Logger,
  pair: Pick<ActiveOptions, 'holds' | 'written'> & { status: () => PairStatus; switchover: () => void; broken: () => void },
): PairPart {
  return {
    role: 'active',
    status: pair.status,
    switchover: pair.switchover,
    attach: (db) =>
      attachActive({
        db,
        js: cluster.js,
        names: cluster.names,
        after,
        term,
        holds: pair.holds,
        written: pair.written,
        broken: (error) => {
          log.error({ err: error }, 'an entry of the change log could not be stored: this box acknowledges nothing more');
          pair.broken();
        },
        log,
      }),
  };
}

/** How a process that stepped down as active ends (EX_TEMPFAIL: the service starts it again). */
export const EXIT_STEPPED_DOWN = 75;

/**
 * The active's way out once it may no longer act (docs/ha.md, "Stepping down"): it ends
 * the process. Nothing of the appliance runs after this line, so nothing it committed
 * and could not store is acknowledged; the service starts it again (Restart=always),
 * and the start finds where its database stands: following the log, or joining.
 */
function exitSteppedDown(log: Logger, reason: string): void {
  log.fatal({ reason }, 'this box no longer holds the lease: it ends now, acknowledging nothing more, and starts again as standby');
  log.flush();
  process.exit(EXIT_STEPPED_DOWN);
}

/** What a standby answers a write: 503, where the writes go, when to try again. */
function standbyRefusal(ha: HaConfig, lease: LeaseStatus | undefined): ServerDeclined {
  const active =
    lease?.role === 'follower' && lease.holder ? `the active box ${lease.holder}${lease.holderUrl ? ` (${lease.holderUrl})` : ''}` : 'the active box';
  const retry = String(Math.ceil(ha.leaseTtlMs / 1000));
  return new ServerDeclined(503, `This box is the standby of pair ${ha.pair!}: writes go to ${active}`, { 'Retry-After': retry });
}

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
