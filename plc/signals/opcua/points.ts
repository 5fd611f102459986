// The watched points of an OPC UA signal channel on its server: their node ids checked
// once per connection (a bad one is reported for its point and left out, the others are
// watched), the monitored items of the one subscription the driver (driver.ts) holds,
// and each change the server reports handed to the points that watch its node. Apart
// from the connection: node-opcua re-creates the subscription and its items after a
// reconnect by itself; what is monitored only changes when the driver starts over.

import {
  AttributeIds,
  StatusCodes,
  TimestampsToReturn,
  resolveNodeId,
  type ClientSession,
  type ClientSubscription,
  type DataValue,
  type NodeId,
  type StatusCode,
} from 'node-opcua-client';
import type { Logger } from '../../../src/core/log.ts';
import type { DriverHandlers, SignalValue, WatchedPoint } from '../driver.ts';
import type { OpcuaDriverConfig } from './driver.ts';
import { signalValue } from './values.ts';

/** A node watched for one or more points (two points may watch the same node). */
export interface Monitored {
  address: string;
  nodeId: NodeId;
  points: WatchedPoint[];
}

/** The driver's counters the points count in. */
interface PointCounts {
  errors: number;
  notifications: number;
}

export class WatchedPoints {
  readonly #config: OpcuaDriverConfig;
  readonly #log: Logger;
  readonly #counts: PointCounts;
  #points: WatchedPoint[] = [];
  #handlers?: DriverHandlers;

  constructor(config: OpcuaDriverConfig, log: Logger, counts: PointCounts) {
    this.#config = config;
    this.#log = log;
    this.#counts = counts;
  }

  watch(points: readonly WatchedPoint[]): void {
    this.#points = [...points];
  }

  /** Where values and errors go, from the driver's start on. */
  use(handlers: DriverHandlers): void {
    this.#handlers = handlers;
  }

  /**
   * The watched points' node ids, checked once against the server: a node id that is
   * malformed, unknown or not a variable is reported for its point (the channel shows it
   * at start) and left out, and the other points are watched.
   */
  async resolve(session: ClientSession): Promise<Monitored[]> {
    const byAddress = new Map<string, Monitored>();
    for (const point of this.#points) {
      const known = byAddress.get(point.address);
      if (known) {
        known.points.push(point);
        continue;
      }
      try {
        byAddress.set(point.address, { address: point.address, nodeId: parseNodeId(point.address), points: [point] });
      } catch (err) {
        this.#pointError(point, err as Error);
      }
    }
    const candidates = [...byAddress.values()];
    if (candidates.length === 0) return [];
    const answers = await session.read(candidates.map((m) => ({ nodeId: m.nodeId, attributeId: AttributeIds.DataType })));
    return candidates.filter((m, i) => {
      const status = answers[i]!.statusCode;
      if (status.isGood()) return true;
      const reason = status === StatusCodes.BadAttributeIdInvalid ? 'not a variable' : status.name;
      for (const point of m.points) {
        this.#pointError(point, statusError(`OPC UA node ${m.address} of point ${point.id} on ${this.#config.endpoint}`, status), reason);
      }
      return false;
    });
  }

  #notified(monitored: Monitored | undefined, dataValue: DataValue): void {
    if (!monitored) return;
    this.#counts.notifications++;
    for (const point of monitored.points) {
      if (!dataValue.statusCode.isGood()) {
        this.#pointError(point, statusError(`OPC UA node ${monitored.address} of point ${point.id}`, dataValue.statusCode));
        continue;
      }
      let value: SignalValue;
      try {
        value = signalValue(dataValue.value.value, point.kind, monitored.address);
      } catch (err) {
        this.#pointError(point, err as Error);
        continue;
      }
      this.#handlers?.onValue(point.id, value);
    }
  }

  #pointError(point: WatchedPoint, err: Error, reason?: string): void {
    this.#counts.errors++;
    this.#log.warn({ point: point.id, address: point.address, reason: reason ?? err.message }, 'OPC UA point failed');
    this.#handlers?.onError(point.id, err);
  }

  /** The resolved nodes as the subscription's monitored items; their changes go to their points. */
  async monitor(subscription: ClientSubscription, monitored: readonly Monitored[]): Promise<void> {
    const { name, samplingMs } = this.#config;
    const group = await subscription.monitorItems(
      monitored.map((m) => ({ nodeId: m.nodeId, attributeId: AttributeIds.Value })),
      // A queue, not just the latest value: a trigger that pulses between two publishes still arrives as a rise and a fall.
      { samplingInterval: samplingMs, discardOldest: true, queueSize: 10 },
      TimestampsToReturn.Neither,
    );
    group.on('changed', (_item, dataValue: DataValue, index: number) => this.#notified(monitored[index], dataValue));
    group.on('err', (message: string) => {
      this.#counts.errors++;
      this.#handlers?.onError(undefined, new Error(`OPC UA subscription of ${name}: ${message}`));
    });
  }
}

/** A node id with the status a server answered for it, as an error a commissioning engineer can act on. */
export function statusError(what: string, status: StatusCode): Error {
  return new Error(`${what}: ${status.name}${status.description ? ` (${status.description})` : ''}`);
}

export function parseNodeId(address: string): NodeId {
  try {
    return resolveNodeId(address);
  } catch {
    throw new Error(`OPC UA node id ${JSON.stringify(address)} is malformed (expected e.g. ns=3;s=Conv.C1.Error or ns=2;i=1001)`);
  }
}
