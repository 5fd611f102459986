import { spawnSync } from 'node:child_process';
import { afterAll } from 'vitest';
import { knowsMetaLeader, runNats, untilOneMetaLeader, type NatsServer } from './nats.ts';

// A hall of boxes on one machine, for the pair's tests (docs/ha.md): each box a network
// namespace of its own, made here (`ip netns`, veth pairs, two bridges), so that a test
// can cut one box off from the others as a cable or a switch port would. Two networks,
// as on a site: the cluster network the three nats-server nodes talk over, and the
// access network the test (the PLCs, the browsers) reaches the boxes on. Cutting a box's
// cluster link leaves it reachable: an active cut off from the other two still gets
// requests, and must not acknowledge them once it may no longer act.
//
// Everything made here is removed with the test file (afterAll). A machine where the
// namespaces cannot be made fails the test with one line that says why.

export type BoxName = 'a' | 'b' | 'w';

export interface HallBox {
  name: BoxName;
  /** The namespace: `ip netns exec <ns> …` runs a command on the box. */
  ns: string;
  /** The box's address on the cluster network (nats-server routes). */
  clusterIp: string;
  /** The box's address on the access network (the test reaches it here). */
  accessIp: string;
  /** The root side of its cluster link: down cuts it off from the other boxes. */
  clusterLink: string;
}

export interface Hall {
  boxes: Record<BoxName, HallBox>;
  /** Cuts the box's cluster link (as an unplugged cable): it keeps its access link. */
  cut(box: BoxName): void;
  heal(box: BoxName): void;
  close(): void;
}

const halls = new Set<Hall>();
afterAll(() => {
  for (const hall of halls) hall.close();
});

function ip(args: string[]): void {
  const run = spawnSync('ip', args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`ip ${args.join(' ')}: ${(run.stderr || run.error?.message || `exit ${run.status}`).trim()}`);
}

/** Makes a hall with three boxes (a, b and the witness w) on two fresh bridges; fails with one line where it cannot. */
export function makeHall(): Hall {
  // A subnet and names of this hall alone (suites run side by side).
  for (let attempt = 0; attempt < 20; attempt++) {
    const n = 10 + Math.floor(Math.random() * 240);
    const [clusterBridge, accessBridge] = [`wmsc${n}`, `wmsa${n}`];
    try {
      ip(['link', 'add', clusterBridge, 'type', 'bridge']);
    } catch (error) {
      if (String(error).includes('File exists')) continue;
      throw new Error(`the pair's test needs network namespaces and bridges (root, iproute2): ${(error as Error).message}`);
    }
    return build(n, clusterBridge, accessBridge);
  }
  throw new Error('no free subnet for a hall of test boxes after 20 tries');
}

function build(n: number, clusterBridge: string, accessBridge: string): Hall {
  const made: (() => void)[] = [() => ip(['link', 'del', clusterBridge])];
  const close = () => {
    for (const undo of made.reverse()) {
      try {
        undo();
      } catch {
        /* gone already */
      }
    }
    made.length = 0;
    halls.delete(hall);
  };
  const hall: Hall = { boxes: {} as Record<BoxName, HallBox>, cut: () => undefined, heal: () => undefined, close };
  halls.add(hall);
  try {
    ip(['link', 'add', accessBridge, 'type', 'bridge']);
    made.push(() => ip(['link', 'del', accessBridge]));
    ip(['addr', 'add', `10.201.${n}.1/24`, 'dev', clusterBridge]);
    ip(['addr', 'add', `10.202.${n}.1/24`, 'dev', accessBridge]);
    ip(['link', 'set', clusterBridge, 'up']);
    ip(['link', 'set', accessBridge, 'up']);
    (['a', 'b', 'w'] as const).forEach((name, i) => {
      const ns = `wms${n}${name}`;
      ip(['netns', 'add', ns]);
      made.push(() => ip(['netns', 'del', ns]));
      const host = 11 + i;
      const links = [
        { root: `c${n}${name}`, inside: 'eth0', bridge: clusterBridge, address: `10.201.${n}.${host}/24` },
        { root: `a${n}${name}`, inside: 'eth1', bridge: accessBridge, address: `10.202.${n}.${host}/24` },
      ];
      for (const link of links) {
        ip(['link', 'add', link.root, 'type', 'veth', 'peer', 'name', `${link.root}p`]);
        ip(['link', 'set', `${link.root}p`, 'netns', ns]);
        ip(['-n', ns, 'link', 'set', `${link.root}p`, 'name', link.inside]);
        ip(['-n', ns, 'addr', 'add', link.address, 'dev', link.inside]);
        ip(['-n', ns, 'link', 'set', link.inside, 'up']);
        ip(['link', 'set', link.root, 'master', link.bridge]);
        ip(['link', 'set', link.root, 'up']);
      }
      ip(['-n', ns, 'link', 'set', 'lo', 'up']);
      hall.boxes[name] = { name, ns, clusterIp: `10.201.${n}.${host}`, accessIp: `10.202.${n}.${host}`, clusterLink: `c${n}${name}` };
    });
  } catch (error) {
    close();
    throw new Error(`the pair's test could not make its network namespaces: ${(error as Error).message}`);
  }
  hall.cut = (box) => ip(['link', 'set', hall.boxes[box].clusterLink, 'down']);
  hall.heal = (box) => ip(['link', 'set', hall.boxes[box].clusterLink, 'up']);
  return hall;
}

/** Ports inside each box (a namespace has ports of its own). */
export const HALL_PORTS = { client: 4222, http: 8222, cluster: 6222, wms: 8080 } as const;

/** The pair's nats-server node on a box of the hall: clients on every address, routes on the cluster network. */
export function hallNatsConfig(hall: Hall, box: BoxName, storeDir: string): string {
  const own = hall.boxes[box];
  const others = Object.values(hall.boxes).filter((b) => b !== own);
  return [
    `server_name: "hall-${box}"`,
    `listen: "0.0.0.0:${HALL_PORTS.client}"`,
    `http: "0.0.0.0:${HALL_PORTS.http}"`,
    // A route whose cable was pulled is found dead in seconds, not minutes, and dialled again:
    // the nodes do not relay for each other, so until then a box beside it hears nothing of
    // the subscriptions of the box behind it (the active's copies, say).
    'ping_interval: "2s"',
    'ping_max: 2',
    'jetstream {',
    `  store_dir: ${JSON.stringify(storeDir)}`,
    '  max_memory_store: 64MB',
    '  max_file_store: 64GB',
    '}',
    'cluster {',
    '  name: "hall"',
    `  listen: "${own.clusterIp}:${HALL_PORTS.cluster}"`,
    `  routes: [ ${others.map((b) => `"nats-route://${b.clusterIp}:${HALL_PORTS.cluster}"`).join(', ')} ]`,
    '}',
    '',
  ].join('\n');
}

/** The three nodes of the hall's cluster, one in each box, once they agree on a meta leader. */
export async function startHallCluster(hall: Hall): Promise<Record<BoxName, NatsServer>> {
  const nodes = await Promise.all(
    (['a', 'b', 'w'] as const).map((box) =>
      runNats({
        name: `hall-${box}`,
        ports: { client: HALL_PORTS.client, http: HALL_PORTS.http, cluster: HALL_PORTS.cluster },
        config: (storeDir) => hallNatsConfig(hall, box, storeDir),
        ready: knowsMetaLeader,
        waitReady: false,
        netns: { name: hall.boxes[box].ns, host: hall.boxes[box].accessIp },
      }),
    ),
  );
  await untilOneMetaLeader(nodes, 'hall');
  return { a: nodes[0]!, b: nodes[1]!, w: nodes[2]! };
}
