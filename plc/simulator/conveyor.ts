// The simulated conveyor: which location a TU can travel to from where, and how long
// the trip takes. `runTu` waits that long between a RES_ and the next REQ_, so a test
// sees the host's answers with realistic gaps, and a strict model catches a host that
// sends a TU somewhere the belts do not go.

import { encodeLocation } from './encoder.ts';

export interface Segment {
  from: string;
  to: string;
  /** Travel time in milliseconds. */
  ms: number;
}

export interface ConveyorOptions {
  /** Travel time for a move the graph does not list (lenient models only). Default 0. */
  defaultMs?: number;
  /** Refuse moves the graph does not list. Default false. */
  strict?: boolean;
}

export class UnknownSegmentError extends Error {
  override name = 'UnknownSegmentError';
}

export class Conveyor {
  private readonly segments = new Map<string, number>();
  private readonly defaultMs: number;
  private readonly strict: boolean;

  constructor(segments: readonly Segment[] = [], options: ConveyorOptions = {}) {
    this.defaultMs = options.defaultMs ?? 0;
    this.strict = options.strict ?? false;
    for (const s of segments) this.add(s.from, s.to, s.ms);
  }

  /** Locations are compared as coordinates, so `CONV/1/2/0/0` and `CONV0001000200000000` are the same. */
  private static key(from: string, to: string): string {
    return `${encodeLocation(from)}>${encodeLocation(to)}`;
  }

  add(from: string, to: string, ms: number): this {
    if (!(ms >= 0)) throw new RangeError(`travel time must be ≥ 0: ${ms}`);
    this.segments.set(Conveyor.key(from, to), ms);
    return this;
  }

  has(from: string, to: string): boolean {
    return this.segments.has(Conveyor.key(from, to));
  }

  /** Milliseconds from one location to the next; throws for an unknown move on a strict model. */
  travelMs(from: string, to: string): number {
    const ms = this.segments.get(Conveyor.key(from, to));
    if (ms !== undefined) return ms;
    if (this.strict) throw new UnknownSegmentError(`the conveyor has no segment ${from} → ${to}`);
    return this.defaultMs;
  }
}
