import type { ApplianceWatch } from './heartbeat.ts';
import type { Layout, Place } from './layout.ts';
import type { PlcMemory } from './memory.ts';

// The simulated PLC program: what a conveyor does with its signals. The arrival
// handshake at a scanner, from the PLC's side (docs/plc.md, "The arrival handshake"):
//
//   PLC:   barcode, trigger 0 → 1     the unit stands at the scanner
//   host:  target, done 0 → 1         the routing decision
//   PLC:   reads target, trigger 1 → 0
//   host:  done 1 → 0                 ready for the next unit
//
// and the changes a PLC makes on its own: a segment's error word, its lock bits, a
// group's availability. run-tu follows a unit from scanner to scanner, as the OSIP
// simulator's run-tu follows it from REQ_ to REQ_.

export interface Arrival {
  barcode: string;
  at: Place;
  /** The target as the appliance wrote it; '' is none (the fallback). */
  target: string;
  /** The location the target names, when the layout has it. */
  next: Place | undefined;
  /** From the trigger's rise to the appliance's done. */
  ms: number;
}

interface RunTuTrace {
  visited: Place[];
  steps: Arrival[];
  end: 'no-target' | 'max-steps';
}

export class RunTuError extends Error {
  readonly trace: RunTuTrace;
  constructor(message: string, trace: RunTuTrace) {
    super(message);
    this.trace = trace;
  }
}

interface DriverOptions {
  layout: Layout;
  memory: PlcMemory;
  watch: ApplianceWatch;
  /** How long the appliance has for each of its steps (done set, done cleared). */
  timeoutMs: number;
  /** How long to wait for the appliance's first heartbeat. */
  connectTimeoutMs: number;
}

export class ConveyorDriver {
  private readonly o: DriverOptions;

  constructor(o: DriverOptions) {
    this.o = o;
  }

  /** The arrival handshake of one unit at a location's scanner; throws when the appliance does not keep to it. */
  async arrive(barcode: string, at: Place): Promise<Arrival> {
    const { layout, memory, timeoutMs } = this.o;
    const signal = (role: 'barcode' | 'trigger' | 'target' | 'done') => layout.signal(role, at);
    if (memory.get(signal('trigger')) === true) throw new Error(`a unit is at the scanner of ${at.coordinate} already (its trigger is set)`);
    await this.o.watch.untilOnline(this.o.connectTimeoutMs);
    await memory.until(
      signal('done'),
      (v) => v === false,
      timeoutMs,
      `done at ${at.coordinate} is still set from the last unit: the appliance did not clear it`,
    );
    memory.set(signal('barcode'), barcode);
    const raised = performance.now();
    memory.set(signal('trigger'), true);
    try {
      await memory.until(signal('done'), (v) => v === true, timeoutMs, `no done from the appliance at ${at.coordinate}`);
    } catch (err) {
      // The unit is not left at the scanner: the next one may try.
      memory.set(signal('trigger'), false);
      throw err;
    }
    const ms = performance.now() - raised;
    const target = String(memory.get(signal('target')));
    memory.set(signal('trigger'), false);
    await memory.until(signal('done'), (v) => v === false, timeoutMs, `the appliance did not clear done at ${at.coordinate}`);
    return { barcode, at, target, next: target === '' ? undefined : layout.place(target), ms };
  }

  /** A run of arrivals from `start`, at each target's scanner, until the appliance writes no target. */
  async runTu(barcode: string, start: Place, options: { maxSteps: number; travelMs: number; onStep?: (a: Arrival) => void }): Promise<RunTuTrace> {
    const trace: RunTuTrace = { visited: [start], steps: [], end: 'max-steps' };
    let at = start;
    for (let step = 0; step < options.maxSteps; step++) {
      let arrival: Arrival;
      try {
        arrival = await this.arrive(barcode, at);
      } catch (err) {
        throw new RunTuError((err as Error).message, trace);
      }
      trace.steps.push(arrival);
      options.onStep?.(arrival);
      if (arrival.target === '') {
        trace.end = 'no-target';
        return trace;
      }
      if (!arrival.next) {
        throw new RunTuError(
          `the appliance sent TU ${barcode} to "${arrival.target}", which is no location of this conveyor: name it in --locations (COORDINATE=PLCCODE for a PLC code)`,
          trace,
        );
      }
      if (options.travelMs > 0) await new Promise((r) => setTimeout(r, options.travelMs));
      at = arrival.next;
      trace.visited.push(at);
    }
    return trace;
  }

  /** The segment's error word: the location's plcState. */
  setError(at: Place, code: number): void {
    this.o.memory.set(this.o.layout.signal('plcState', at), code);
  }

  lock(at: Place, direction: 'in' | 'out', on: boolean): void {
    this.o.memory.set(this.o.layout.signal(direction === 'in' ? 'inboundLock' : 'outboundLock', at), on);
  }

  /** A group's availability word: bit 0 in, bit 1 out; `both` sets the two. */
  group(name: string, direction: 'in' | 'out' | 'both', available: boolean): void {
    const signal = this.o.layout.signal('groupState', name);
    const bits = direction === 'in' ? 1 : direction === 'out' ? 2 : 3;
    const now = Number(this.o.memory.get(signal));
    this.o.memory.set(signal, available ? now | bits : now & ~bits);
  }
}
