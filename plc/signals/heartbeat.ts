import type { SignalChannel } from './channel.ts';
import type { SignalDriver } from './driver.ts';
import type { ChannelPoint } from './points.ts';

// The heartbeat of a signal channel: our counter written every `periodMs` (1, 2, …
// 65535, 1, …) so the PLC sees the host alive, and, with `plcLife`, the PLC's own life
// counter watched: not changing for `staleMs` (default three periods) makes the channel
// STALE until it changes again. Heartbeats are counted, not logged.

export class Heartbeat {
  readonly point: ChannelPoint;
  errors = 0;
  lastError: string | undefined;
  lastWritten: number | undefined;
  private counter = 0;
  private timer: NodeJS.Timeout | undefined;
  private staleTimer: NodeJS.Timeout | undefined;
  private writing = false;
  private readonly periodMs: number;
  private readonly staleMs: number | undefined;

  private readonly o: { point: ChannelPoint; driver: SignalDriver; channel: SignalChannel };

  constructor(o: { point: ChannelPoint; driver: SignalDriver; channel: SignalChannel }) {
    this.o = o;
    this.point = o.point;
    const p = o.point.config;
    if (p.kind !== 'heartbeat') throw new Error('not a heartbeat point');
    this.periodMs = p.periodMs;
    this.staleMs = p.plcLife === undefined ? undefined : (p.staleMs ?? 3 * p.periodMs);
  }

  start(): void {
    this.timer = setInterval(() => void this.beat(), this.periodMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.staleTimer);
  }

  /** The driver is (again) online: the PLC's life counter has `staleMs` to show it is alive. */
  online(): void {
    this.watch();
  }

  lifeChanged(): void {
    this.o.channel.setStale(false);
    this.watch();
  }

  private watch(): void {
    if (this.staleMs === undefined) return;
    clearTimeout(this.staleTimer);
    this.staleTimer = setTimeout(() => {
      if (this.o.channel.online) this.o.channel.setStale(true);
    }, this.staleMs);
    this.staleTimer.unref();
  }

  private async beat(): Promise<void> {
    // A write still under way (a slow line) is not overtaken by the next.
    if (this.writing || !this.o.channel.online) return;
    this.writing = true;
    const next = (this.counter % 65535) + 1;
    const { address, kind } = this.o.point.counter!;
    try {
      await this.o.driver.write(address, kind, next);
      this.counter = next;
      this.lastWritten = next;
      this.o.channel.counters.heartbeats++;
    } catch (err) {
      this.errors++;
      this.lastError = (err as Error).message;
      this.o.channel.counters.writeErrors++;
      this.o.channel.error(this.point.id, err as Error);
    } finally {
      this.writing = false;
    }
  }
}
