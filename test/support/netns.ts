import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
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

/** The files docs/ha ships (the nats-server nodes, keepalived), as an installer starts from them. */
export const haDocs = (file: string) => readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'ha', file), 'utf8');

/** Each box's node file in docs/ha, and the address it has there (docs/ha.md, "Setting a pair up"). */
const NODE_FILES: Record<BoxName, { file: string; address: string; server: string }> = {
  a: { file: 'node-a.conf', address: '10.0.0.11', server: 'node-a' },
  b: { file: 'node-b.conf', address: '10.0.0.12', server: 'node-b' },
  w: { file: 'witness.conf', address: '10.0.0.13', server: 'witness' },
};

/**
 * The pair's nats-server node on a box of the hall: docs/ha's file for it, as written but
 * for what an installer changes too (the three addresses become the hall's cluster
 * addresses) and the store (a test's folder). Its monitoring listens on the box's access
 * address instead of the box's loopback, for the test to watch it from outside.
 */
export function hallNatsConfig(hall: Hall, box: BoxName, storeDir: string): string {
  let text = haDocs(NODE_FILES[box].file)
    .replace(/"\/var\/lib\/nats"/, JSON.stringify(storeDir))
    .replace(/^http: "127\.0\.0\.1:8222"$/m, `http: "${hall.boxes[box].accessIp}:${HALL_PORTS.http}"`);
  for (const name of ['a', 'b', 'w'] as const) text = text.replaceAll(`${NODE_FILES[name].address}:`, `${hall.boxes[name].clusterIp}:`);
  const settings = text.replace(/#.*$/gm, '');
  if (/10\.0\.0\.|\/var\/lib\/nats|127\.0\.0\.1:8222/.test(settings))
    throw new Error(`docs/ha/${NODE_FILES[box].file} is not as the hall's test expects it:\n${text}`);
  return text;
}

/** The three nodes of the hall's cluster, one in each box, once they agree on a meta leader. */
export async function startHallCluster(hall: Hall): Promise<Record<BoxName, NatsServer>> {
  const nodes = await Promise.all(
    (['a', 'b', 'w'] as const).map((box) =>
      runNats({
        name: NODE_FILES[box].server,
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
