import type { Layout, Signal } from './layout.ts';
import type { PlcMemory, Write } from './memory.ts';

// Both life signs of a signal channel, from the PLC's side: the appliance writes its
// heartbeat counter every second while its channel is online, so the first write says
// the appliance is there (run-tu and arrive wait for it) and a pause of three periods says
// it has gone; the simulator counts its own life counter up every second for the
// appliance to watch (`plcLife`). The heartbeat is reported when it starts and stops,
// not at every beat.

/** The appliance's default heartbeat period (the printed entry keeps it). */
const HEARTBEAT_PERIOD_MS = 1000;
/** No heartbeat for this long: the appliance has gone (its own rule for the PLC's life counter). */
const SILENT_MS = 3 * HEARTBEAT_PERIOD_MS;

export class ApplianceWatch {
  private readonly heartbeat: Signal;
  private readonly life: Signal;
  private lifeTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  private alive = false;
  private last = 0;
  private readonly onWrite = (w: Write) => {
    if (w.signal === this.heartbeat && w.by === 'appliance') this.beat(Number(w.value));
  };

  private readonly memory: PlcMemory;
  /** One line for each start and stop of the heartbeat. */
  private readonly note: (line: string) => void;
  /** Where the heartbeat is written, for the lines. */
  private readonly address: string;

  constructor(memory: PlcMemory, layout: Layout, note: (line: string) => void, address: string) {
    this.memory = memory;
    this.note = note;
    this.address = address;
    this.heartbeat = layout.signal('heartbeat');
    this.life = layout.signal('plcLife');
  }

  get online(): boolean {
    return this.alive;
  }

  start(): void {
    this.memory.on('write', this.onWrite);
    this.lifeTimer = setInterval(() => this.memory.set(this.life, (Number(this.memory.get(this.life)) % 65535) + 1), HEARTBEAT_PERIOD_MS);
    this.lifeTimer.unref();
  }

  stop(): void {
    this.memory.off('write', this.onWrite);
    clearInterval(this.lifeTimer);
    clearTimeout(this.silenceTimer);
  }

  /** Resolves once the appliance writes its heartbeat (at once when it is writing it). */
  async untilOnline(timeoutMs: number): Promise<void> {
    if (this.alive) return;
    try {
      await this.memory.next((w) => w.signal === this.heartbeat && w.by === 'appliance', timeoutMs, 'no heartbeat');
    } catch (err) {
      if ((err as Error).message.startsWith('no heartbeat')) {
        throw new Error(
          `the appliance did not write its heartbeat (${this.address}) within ${timeoutMs / 1000} s: is the entry above in its plc.signals, and enabled?`,
        );
      }
      throw err;
    }
  }

  private beat(counter: number): void {
    if (!this.alive) this.note(`the appliance is online: heartbeat ${counter} at ${this.address}${this.last === 0 ? '' : ' again'}`);
    this.alive = true;
    this.last = counter;
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => {
      this.alive = false;
      this.note(`!! the appliance has gone silent: no heartbeat for ${SILENT_MS / 1000} s (last ${this.last})`);
    }, SILENT_MS);
    this.silenceTimer.unref();
  }
}
