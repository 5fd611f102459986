import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { PairRole, PairStatus } from './status.ts';

// What the two boxes of a pair know of each other and of the cluster's three nodes
// (docs/ha.md, "What people see"). Each box says where it stands once a second on the
// pair's subject (core NATS: nothing is kept, so a box that says nothing is missing);
// the change log's stream says which of the three nodes hold its replicas up to date.
// Both are read on the box's own event loop and cost a message and a request a second.

/** How often a box says where it stands, and asks the log after the nodes. */
export const BEAT_MS = 1000;

/** What a box says of itself. */
export interface BoxBeat {
  node: string;
  role: PairRole;
  appliedSeq: number;
  lagEntries: number | undefined;
  lagMs: number | undefined;
  problem: string | undefined;
  /** The server name of its NATS node: the nodes no box names are the witness. */
  server: string | undefined;
  /** The schema of its database (a box of a newer build waits for the active's to match: pair.ts). */
  schema: number | undefined;
}

/** What a box says of itself, from its status (its NATS node's name is added as it is sent). */
export function beatOf(status: PairStatus): BoxBeat {
  const { node, role, replication, problem } = status;
  const { appliedSeq, lagEntries, lagMs, schema } = replication;
  return { node, role, appliedSeq, lagEntries, lagMs, problem, server: undefined, schema };
}

/** The other box, as it last said. */
export interface PeerView extends Omit<BoxBeat, 'server'> {
  heardMsAgo: number;
}

export interface NodeView {
  name: string;
  /** The box whose node it is; null for the witness. */
  box: string | null;
  current: boolean;
  leader: boolean;
}

/** The subject the boxes of a pair say where they stand on. */
export function beatSubject(pair: string): string {
  return `wms.ha.${pair}.boxes`;
}

export class PairWatch {
  private heard: { beat: BoxBeat; at: number } | undefined;
  private seen: NodeView[] | undefined;
  private sub: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private asking = false;

  private readonly nc: NatsConnection;
  private readonly jsm: JetStreamManager;
  private readonly pair: string;
  private readonly stream: string;
  private readonly self: () => BoxBeat;

  /** `stream`: the change log's; `self`: where this box stands now. */
  constructor(nc: NatsConnection, jsm: JetStreamManager, pair: string, stream: string, self: () => BoxBeat) {
    this.nc = nc;
    this.jsm = jsm;
    this.pair = pair;
    this.stream = stream;
    this.self = self;
  }

  start(): void {
    const own = this.self().node;
    this.sub = this.nc.subscribe(beatSubject(this.pair), {
      callback: (error, message) => {
        if (error) return;
        try {
          const beat = JSON.parse(message.string()) as BoxBeat;
          if (beat.node !== own) this.heard = { beat, at: performance.now() };
        } catch {
          /* not a box of this build: ignored */
        }
      },
    });
    this.timer = setInterval(() => this.turn(), BEAT_MS);
    this.timer.unref();
    this.turn();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sub?.unsubscribe();
    this.sub = undefined;
  }

  /** The other box as it last said; undefined when it has not been heard since this box started. */
  peer(): PeerView | undefined {
    if (!this.heard) return undefined;
    const { server: _server, ...beat } = this.heard.beat;
    return { ...beat, heardMsAgo: Math.round(performance.now() - this.heard.at) };
  }

  /** The cluster's nodes as the change log's leader last told; undefined when this box's node could not ask. */
  nodes(): NodeView[] | undefined {
    return this.seen;
  }

  private turn(): void {
    const beat = this.self();
    try {
      this.nc.publish(beatSubject(this.pair), JSON.stringify({ ...beat, server: this.nc.info?.server_name }));
    } catch {
      /* the connection is closing: the box stops */
    }
    if (this.asking) return;
    this.asking = true;
    void this.ask(beat).finally(() => (this.asking = false));
  }

  private async ask(own: BoxBeat): Promise<void> {
    try {
      const { cluster } = await this.jsm.streams.info(this.stream);
      const boxes = new Map<string, string>();
      const ownServer = this.nc.info?.server_name;
      if (ownServer) boxes.set(ownServer, own.node);
      if (this.heard?.beat.server) boxes.set(this.heard.beat.server, this.heard.beat.node);
      const nodes: NodeView[] = [];
      if (cluster?.leader) nodes.push({ name: cluster.leader, box: boxes.get(cluster.leader) ?? null, current: true, leader: true });
      for (const replica of cluster?.replicas ?? [])
        nodes.push({ name: replica.name, box: boxes.get(replica.name) ?? null, current: replica.current && !replica.offline, leader: false });
      this.seen = nodes.sort((x, y) => x.name.localeCompare(y.name));
    } catch {
      this.seen = undefined;
    }
  }
}
