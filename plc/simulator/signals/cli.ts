import { createInterface } from 'node:readline';
import { EXIT, UsageError, hostPort, int, type Values } from '../cli.ts';
import { RunTuError, type Arrival, type ConveyorDriver } from './driver.ts';
import type { ApplianceWatch } from './heartbeat.ts';
import { BARCODE_WORDS, Layout, LayoutError, addressOf, formatEntry, listOf, type Place, type SignalProtocol, type Value } from './layout.ts';
import type { PlcMemory } from './memory.ts';
import { NotInThisBuild } from './server.ts';
import { SignalSimulator, everywhere, type SignalSimulatorOptions } from './simulator.ts';

// Signal mode of the simulator's command line (`--protocol opcua | modbus-tcp |
// modbus-rtu`, usage in ../cli.ts): the simulator is the PLC of a signal channel. It
// serves the layout's signals, prints the `plc.signals` entry for the appliance, then
// every write of the appliance (<<) and every change of its own (>>), and runs `serve`
// (commands from standard input) or `run-tu`. Everything given is checked before the
// server starts: a bad argument starts nothing (exit 2).

/** Options of OSIP mode, refused here. */
const OSIP_ONLY = ['tcp', 'host', 'seq', 'length', 'framing', 'terminator', 'bcc', 'wait', 'line-speed'] as const;

const CHANNEL_NAME = /^[A-Za-z0-9_.-]{1,32}$/;

interface SignalIo {
  out: (line: string) => void;
  input: NodeJS.ReadableStream;
}

/** The simulator's options and the command line's own. */
type Settings = SignalSimulatorOptions & {
  travelMs: number;
  maxSteps: number;
  heartbeats: boolean;
};

function settingsOf(protocol: SignalProtocol, values: Values): Settings {
  const osip = OSIP_ONLY.find((key) => values[key] !== undefined);
  if (osip) throw new UsageError(`--${osip} applies to --protocol osip`);
  let layout: Layout;
  try {
    layout = new Layout(listOf(values.locations), listOf(values.groups));
  } catch (err) {
    if (err instanceof LayoutError) throw new UsageError(err.message);
    throw err;
  }
  const name = values.name ?? 'SIM01';
  if (!CHANNEL_NAME.test(name) || name === 'index') throw new UsageError(`--name must be 1 to 32 letters, digits, _ . or - (not index), got "${name}"`);
  const rtu = protocol === 'modbus-rtu';
  if (rtu && values.listen !== undefined) throw new UsageError('--listen applies to opcua and modbus-tcp; modbus-rtu serves on --serial');
  if (!rtu && values.serial !== undefined) throw new UsageError(`--serial applies to modbus-rtu; ${protocol} serves on --listen`);
  for (const key of ['baud', 'parity', 'appliance-device'] as const) {
    if (!rtu && values[key] !== undefined) throw new UsageError(`--${key} applies to modbus-rtu`);
  }
  if (protocol === 'opcua' && values.unit !== undefined) throw new UsageError('--unit applies to modbus-tcp and modbus-rtu');
  const unitId = int(values, 'unit', 1);
  if (unitId < 1 || unitId > 247) throw new UsageError(`--unit must be 1 to 247, got ${unitId}`);
  const settings: Settings = {
    protocol,
    layout,
    name,
    unitId,
    timeoutMs: int(values, 'timeout', 5000),
    travelMs: int(values, 'travel', 0),
    maxSteps: int(values, 'max-steps', 100),
    heartbeats: values.heartbeats ?? false,
  };
  if (settings.timeoutMs === 0) throw new UsageError('--timeout must be above 0');
  if (rtu) {
    if (values.serial === undefined) throw new UsageError("modbus-rtu needs --serial PATH (the simulator's end of the line)");
    const parity = values.parity ?? 'even';
    if (parity !== 'none' && parity !== 'even' && parity !== 'odd') throw new UsageError(`--parity must be none, even or odd, got "${parity}"`);
    const baudRate = int(values, 'baud', 38_400);
    if (baudRate < 300 || baudRate > 4_000_000) throw new UsageError(`--baud must be 300 to 4000000, got ${baudRate}`);
    settings.serial = { path: values.serial, baudRate, parity, applianceDevice: values['appliance-device'] ?? values.serial };
  } else {
    settings.listen = hostPort(values.listen ?? (protocol === 'opcua' ? '4840' : '5020'), 'listen', '0.0.0.0');
  }
  return settings;
}

/** A barcode the scanner can hold: printable, no spaces; Modbus: the 20 characters of its registers. */
function checkBarcode(barcode: string, protocol: SignalProtocol): string | undefined {
  const max = protocol === 'opcua' ? 250 : BARCODE_WORDS * 2;
  if (!/^[\x21-\x7e]+$/.test(barcode)) return `a barcode is printable characters without spaces, got ${JSON.stringify(barcode)}`;
  if (barcode.length > max) return `a barcode has at most ${max} characters here, got ${barcode.length}`;
  return undefined;
}

function placeOf(layout: Layout, name: string): Place {
  const place = layout.place(name);
  if (!place) throw new UsageError(`${name} is not one of --locations (a coordinate or its PLC code)`);
  return place;
}

/** A value as the protocol shows it: Modbus bits as 1/0, OPC UA's as true/false, text quoted. */
function show(value: Value, protocol: SignalProtocol): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean' && protocol !== 'opcua') return value ? '1' : '0';
  return String(value);
}

function attachPrinter(s: Settings, memory: PlcMemory, out: (line: string) => void): void {
  memory.on('write', (w) => {
    const role = w.signal.role;
    // The simulator's life counter counts every second, and the heartbeat only shows when it starts and stops (ApplianceWatch).
    if (role === 'plcLife' || (role === 'heartbeat' && !s.heartbeats)) return;
    out(`${w.by === 'appliance' ? '<<' : '>>'} ${addressOf(w.signal, s.protocol)} = ${show(w.value, s.protocol)}   (${s.layout.describe(w.signal)})`);
  });
  memory.on('stray', (w) => out(`<< ${w.address} = ${show(w.value, s.protocol)}   (no signal of this conveyor)`));
}

function arrivalLine(a: Arrival): string {
  const to = a.target === '' ? 'no target' : (a.next?.coordinate ?? `"${a.target}"`);
  // The target as written when it is not the coordinate itself: a PLC code, or a name the layout does not know.
  const written = a.target !== '' && a.next && a.target !== a.next.coordinate ? `target "${a.target}", ` : '';
  return `TU ${a.barcode} at ${a.at.coordinate} → ${to} (${written}done after ${a.ms.toFixed(1)} ms)`;
}

/** Resolves on Ctrl-C or a termination request; the returned function stops listening. */
function onInterrupt(handler: () => void): () => void {
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

const SERVE_HELP = [
  'commands:',
  "  arrive BARCODE LOCATION       arrival handshake at the location's scanner",
  "  error LOCATION CODE           the segment's error word (plcState), 0 = none",
  '  lock LOCATION in|out on|off   a lock bit of the segment',
  "  group GROUP [in|out] on|off   the group's availability (both ways without in|out)",
  '  show                          every signal and its value',
  '  quit                          stop serving',
];

interface Run {
  s: Settings;
  memory: PlcMemory;
  driver: ConveyorDriver;
  watch: ApplianceWatch;
  io: SignalIo;
}

const waitingLine = (r: Run) => `waiting for the appliance (its heartbeat at ${addressOf(r.s.layout.signal('heartbeat'), r.s.protocol)})…`;

/** One command line of `serve`; throws for a line it cannot carry out (reported, not fatal). */
async function serveCommand(line: string, r: Run): Promise<'quit' | void> {
  const { s, driver, memory } = r;
  const out = r.io.out;
  const [name, ...a] = line.trim().split(/\s+/);
  const wrong = (usage: string) => new UsageError(`usage: ${usage}`);
  const onOff = (text: string | undefined, usage: string) => {
    if (text !== 'on' && text !== 'off') throw wrong(usage);
    return text === 'on';
  };
  switch (name) {
    case undefined:
    case '':
      return;
    case 'quit':
    case 'exit':
      return 'quit';
    case 'help':
      for (const l of SERVE_HELP) out(l);
      return;
    case 'show':
      for (const signal of s.layout.signals)
        out(`   ${addressOf(signal, s.protocol)} = ${show(memory.get(signal), s.protocol)}   (${s.layout.describe(signal)})`);
      return;
    case 'arrive': {
      if (a.length !== 2) throw wrong('arrive BARCODE LOCATION');
      const problem = checkBarcode(a[0]!, s.protocol);
      if (problem) throw new UsageError(problem);
      const at = placeOf(s.layout, a[1]!);
      if (!r.watch.online) out(waitingLine(r));
      out(arrivalLine(await driver.arrive(a[0]!, at)));
      return;
    }
    case 'error': {
      const usage = 'error LOCATION CODE (a whole number 0-65535; the appliance takes 0-9999)';
      if (a.length !== 2 || !/^\d{1,5}$/.test(a[1]!) || Number(a[1]) > 65_535) throw wrong(usage);
      driver.setError(placeOf(s.layout, a[0]!), Number(a[1]));
      return;
    }
    case 'lock': {
      const usage = 'lock LOCATION in|out on|off';
      if (a.length !== 3 || (a[1] !== 'in' && a[1] !== 'out')) throw wrong(usage);
      driver.lock(placeOf(s.layout, a[0]!), a[1], onOff(a[2], usage));
      return;
    }
    case 'group': {
      const usage = 'group GROUP [in|out] on|off';
      if (a.length < 2 || a.length > 3 || (a.length === 3 && a[1] !== 'in' && a[1] !== 'out')) throw wrong(usage);
      if (!s.layout.groups.includes(a[0]!)) throw new UsageError(`${a[0]} is not one of --groups`);
      driver.group(a[0]!, a.length === 3 ? (a[1] as 'in' | 'out') : 'both', onOff(a.at(-1), usage));
      return;
    }
    default:
      throw new UsageError(`unknown command "${name}" (help lists them)`);
  }
}

/** `serve`: commands from the input, one at a time, until quit, Ctrl-C or termination. */
async function serve(r: Run): Promise<number> {
  const lines = createInterface({ input: r.io.input, terminal: false });
  let queue: Promise<'quit' | void> = Promise.resolve();
  let stopListening = () => {};
  try {
    await new Promise<void>((resolve) => {
      stopListening = onInterrupt(resolve);
      // Said once a stop request would be heard: a supervisor that reads it may stop us at once.
      r.io.out('serving; type help for the commands, quit or Ctrl-C to stop');
      lines.on('line', (line) => {
        queue = queue.then(async (before) => {
          if (before === 'quit') return 'quit';
          try {
            const result = await serveCommand(line, r);
            if (result === 'quit') resolve();
            return result;
          } catch (err) {
            r.io.out(`!! ${(err as Error).message}`);
            return undefined;
          }
        });
      });
      // When the input ends (closed, or not a terminal), the simulator serves on until stopped.
    });
  } finally {
    stopListening();
    lines.close();
  }
  return EXIT.ok;
}

async function runTu(r: Run, barcode: string, start: Place): Promise<number> {
  const { s, io } = r;
  if (!r.watch.online) io.out(waitingLine(r));
  let interrupted = false;
  const stopListening = onInterrupt(() => {
    interrupted = true;
    // Ends the waits under way: the run stops at once.
    r.memory.close();
  });
  const route = (places: Place[]) => places.map((p) => p.coordinate).join(' → ');
  try {
    const trace = await r.driver.runTu(barcode, start, { maxSteps: s.maxSteps, travelMs: s.travelMs, onStep: (a) => io.out(arrivalLine(a)) });
    io.out(`TU ${barcode} visited ${route(trace.visited)}; ${trace.end === 'no-target' ? 'done' : 'step limit reached'}`);
    return trace.end === 'no-target' ? EXIT.ok : EXIT.failed;
  } catch (err) {
    if (err instanceof RunTuError) io.out(`TU ${barcode} visited ${route(err.trace.visited)} before the failure`);
    if (interrupted) throw new Error('interrupted');
    throw err;
  } finally {
    stopListening();
  }
}

/**
 * Signal mode: `values` and `positionals` as ../cli.ts parsed them. Returns the exit code;
 * throws UsageError for a bad argument (before anything starts) and Error when the
 * server cannot start or run-tu cannot get through.
 */
export async function runSignalMode(protocol: SignalProtocol, values: Values, positionals: string[], io: SignalIo): Promise<number> {
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError('no command given: serve or run-tu (see --help)');
  if (command !== 'serve' && command !== 'run-tu') throw new UsageError(`unknown command "${command}" in signal mode: serve or run-tu (see --help)`);
  if (command === 'serve' && rest.length > 0) throw new UsageError('usage: serve (the locations are --locations)');
  if (command === 'run-tu' && rest.length !== 2) throw new UsageError('usage: run-tu BARCODE START');
  const s = settingsOf(protocol, values);
  let start: Place | undefined;
  if (command === 'run-tu') {
    const problem = checkBarcode(rest[0]!, protocol);
    if (problem) throw new UsageError(problem);
    start = placeOf(s.layout, rest[1]!);
  }

  let sim: SignalSimulator;
  try {
    sim = await SignalSimulator.start({ ...s, onNote: io.out });
  } catch (err) {
    // A build without the protocol's server: nothing started, a bad argument here.
    if (err instanceof NotInThisBuild) throw new UsageError(err.message);
    throw err;
  }
  const r: Run = { s, memory: sim.memory, driver: sim.driver, watch: sim.watch, io };
  try {
    attachPrinter(s, sim.memory, io.out);
    io.out(sim.server.description);
    io.out('the appliance\'s channel: add this entry to the "signals" list under "plc" in its wms.config.json');
    for (const line of formatEntry(sim.entry)) io.out(line);
    if (s.listen && everywhere(s.listen.host)) io.out('(an appliance on another machine reaches this one at its address instead of 127.0.0.1)');
    return command === 'serve' ? await serve(r) : await runTu(r, rest[0]!, start!);
  } finally {
    await sim.close();
  }
}
