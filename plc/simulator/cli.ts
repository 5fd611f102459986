// The conveyor simulator's command line, two ways: `npm run plc:sim -- [options] <command>`
// from the sources (this file run as a script), and `wms simulate [options] <command>` from
// the appliance's executable (src/main.ts calls runSimulatorCli). Prints every telegram
// sent (>>) and received (<<). Exit codes: 0 the exchange went as the protocol says; 1 it
// did not (no reply, an ERR_ back, no connection); 2 bad arguments, refused before
// anything is sent.
//
// `--protocol` chooses the PLC: OSIP telegrams (the default, here), or signal mode
// (`opcua`, `modbus-tcp`, `modbus-rtu`: ./signals/cli.ts, loaded only then), where the
// simulator serves the signals of a conveyor for a signal channel of the appliance.
//
// Runs directly on Node 24 (type stripping): only node: modules and files of this
// directory are imported, serialport only when --serial is given. The appliance loads this
// file only for `wms simulate`, so its own start pays nothing for it.

import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Conveyor } from './conveyor.ts';
import { EncodeError } from './encoder.ts';
import type { FramingMode, Terminator } from './framing.ts';
import type { TransportOptions } from './link.ts';
import { PlcSimulator, RunTuError, type Outgoing, type ReceivedTelegram, type SentTelegram } from './simulator.ts';

/** The exit codes, as documented in README.md here and in docs/plc.md. */
export const EXIT = { ok: 0, failed: 1, badArguments: 2 } as const;

/** How the caller runs the simulator, and where its lines go. */
interface SimulatorIo {
  /** The command as typed, for the usage text and messages: `wms simulate`, `npm run plc:sim --`. */
  program: string;
  /** Standard output: the telegrams and results; default console.log. */
  out?: (line: string) => void;
  /** Standard error: the one line saying why it failed; default console.error. */
  err?: (line: string) => void;
  /** Where signal mode's `serve` reads its commands; default standard input. */
  input?: NodeJS.ReadableStream;
}

function usage(program: string): string {
  return `Usage: ${program} [options] <command> [arguments]

Simulates a conveyor PLC speaking OSIP (docs/plc.md) to the appliance, or, with
--protocol opcua, modbus-tcp or modbus-rtu, serving a conveyor's signals (signal mode, below).

Connection (one of):
  --tcp HOST:PORT            connect to the appliance's PLC listener (tcp-server channel)
  --listen [HOST:]PORT       listen until the appliance connects (tcp-client channel)
  --serial PATH              serial device, e.g. /dev/ttyUSB0 or one end of a socat pty pair
  --baud N                   serial speed, 8N1 (default 38400)

Telegrams:
  --name NAME                PLC name, the sender (default CNV01)
  --host NAME                host name, the receiver (default MFC__)
  --seq N                    first sequence number (default 1)
  --length N                 telegram length (default 160)
  --framing MODE             line | fixed | stxetx (default line)
  --terminator T             line framing: crlf | lf | none (default crlf)
  --bcc                      stxetx framing: append and check the BCC byte
  --timeout MS               wait this long for a reply (default 500)
  --wait MS                  after a one-way telegram, watch this long for an ERR_ (default 300)
  --line-speed BITS          pace writes like a line of that speed, e.g. 9600
  --travel MS                run-tu: travel time between locations (default 0)
  --max-steps N              run-tu: give up after N requests (default 100)
  -h, --help                 this text

Commands:
  synq                                SYNQ, expect SYNC
  req BARCODE LOCATION [TARGET]       REQ_, expect the matching RES_
  run-tu BARCODE START                REQ_ → RES_ → travel → REQ_ at the target … until a RES_ has no target
  upd BARCODE LOCATION                UPD_ (no reply expected)
  updx BARCODE LOCATION               UPDX, expect ACK_
  locu LOCATION BITMAP [GROUP]        LOCU, e.g. locu CONV/0001/0002/0000/0000 '0012***1'
  sysu GROUP BITMAP                   SYSU, e.g. sysu CONV '******1*'
  err GROUP CODE                      ERR_ from the PLC, e.g. err CONV 00000101
  heartbeat EVERY_MS [COUNT]          COUNT SYNQs (default 5), each must be answered
  raw TEXT                            frame and send TEXT as given (a hand-made telegram)
  listen [MS]                         print what arrives for MS milliseconds (default: until Ctrl-C)

Locations are AREA/AISLE/X/Y/Z (e.g. CONV/0001/0002/0000/0000) or the 20-character coordinate.
Quote bitmaps in the shell: an unquoted ******1* is a file name pattern.

Exit code: 0 the exchange went as the protocol says; 1 it did not (no reply, an ERR_ back,
no connection); 2 bad arguments (nothing is sent).

Examples:
  ${program} --tcp 127.0.0.1:5020 --name CNV01 synq
  ${program} --tcp 127.0.0.1:5020 run-tu 4711 CONV/0001/0001/0000/0000
  ${program} --tcp 127.0.0.1:5020 locu CONV/0001/0002/0000/0000 '0012***1'
  ${program} --listen 5021 --name CNV02 synq
  ${program} --serial /dev/ttyUSB0 --baud 38400 --framing stxetx --bcc synq
${signalUsage(program)}`;
}

/** The signal mode part of the usage (./signals/cli.ts). */
function signalUsage(program: string): string {
  return `
Signal mode (--protocol opcua | modbus-tcp | modbus-rtu): the simulator is the PLC of a signal
channel (docs/plc.md, "Signal channels"). It serves a conveyor's signals, prints the plc.signals
entry that has the appliance read and write them, then every write of the appliance (<<) and
every change of its own (>>).

  --protocol P               osip (the default: telegrams, above), opcua, modbus-tcp, modbus-rtu
  --locations LIST           the conveyor's locations, each a segment with a scanner:
                             COORDINATE[=PLCCODE],… (repeatable, at most 100)
  --groups LIST              location groups whose availability it sets: NAME,… (repeatable)
  --listen [HOST:]PORT       opcua, modbus-tcp: where to serve (default 0.0.0.0:4840 for opcua,
                             0.0.0.0:5020 for modbus-tcp; port 0: a free one)
  --serial PATH              modbus-rtu: the simulator's end of the serial line
  --baud N                   modbus-rtu: speed, 8 data bits, 1 stop bit (default 38400)
  --parity P                 modbus-rtu: none | even | odd (default even)
  --appliance-device PATH    modbus-rtu: the appliance's end of the line, for the entry
                             (default: the --serial path)
  --unit N                   modbus: the unit id, 1-247 (default 1)
  --name NAME                the channel's name in the entry (default SIM01)
  --timeout MS               the appliance's time for each step of a handshake (default 5000)
  --travel MS, --max-steps N run-tu: as above
  --heartbeats               print every heartbeat the appliance writes (default: when they
                             start and stop)

Signal mode commands:
  serve                      serve until Ctrl-C or quit, reading commands from standard input:
                               arrive BARCODE LOCATION       arrival handshake at its scanner
                               error LOCATION CODE           the segment's error word (plcState)
                               lock LOCATION in|out on|off   a lock bit of the segment
                               group GROUP [in|out] on|off   the group's availability
                               show | help | quit
  run-tu BARCODE START       wait for the appliance, then arrival handshakes from START at each
                             target's scanner until the appliance writes no target

A LOCATION is a coordinate of --locations or its PLC code.
Exit code: 0 serve ended, run-tu reached no target; 1 the server could not start, or run-tu did
not get through (no appliance, no done in time, a target not in --locations); 2 bad arguments
(nothing starts).

Examples:
  ${program} --protocol modbus-tcp --listen 5020 --groups CONV \\
      --locations CONV/0001/0001/0000/0000,CONV/0001/0002/0000/0000=17 serve
  ${program} --protocol opcua --locations CONV/0001/0001/0000/0000,CONV/0001/0002/0000/0000 \\
      run-tu 4711 CONV/0001/0001/0000/0000
  ${program} --protocol modbus-rtu --serial /dev/ttyUSB1 --appliance-device /dev/ttyUSB0 \\
      --locations CONV/0001/0001/0000/0000 serve
`;
}

/** Refused before anything starts: exit code 2. */
export class UsageError extends Error {}

export const PROTOCOLS = ['osip', 'opcua', 'modbus-tcp', 'modbus-rtu'] as const;

const OPTIONS = {
  tcp: { type: 'string' },
  listen: { type: 'string' },
  serial: { type: 'string' },
  baud: { type: 'string' },
  name: { type: 'string' },
  host: { type: 'string' },
  seq: { type: 'string' },
  length: { type: 'string' },
  framing: { type: 'string' },
  terminator: { type: 'string' },
  bcc: { type: 'boolean' },
  timeout: { type: 'string' },
  wait: { type: 'string' },
  'line-speed': { type: 'string' },
  travel: { type: 'string' },
  'max-steps': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  // Signal mode (./signals/cli.ts).
  protocol: { type: 'string' },
  locations: { type: 'string', multiple: true },
  groups: { type: 'string', multiple: true },
  unit: { type: 'string' },
  parity: { type: 'string' },
  'appliance-device': { type: 'string' },
  heartbeats: { type: 'boolean' },
} as const;

/** Options of signal mode, refused in OSIP mode. */
const SIGNAL_ONLY = ['locations', 'groups', 'unit', 'parity', 'appliance-device', 'heartbeats'] as const;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

export function int(values: Values, key: keyof Values, fallback: number): number {
  const text = values[key];
  if (text === undefined) return fallback;
  if (typeof text !== 'string' || !/^\d+$/.test(text)) throw new UsageError(`--${key} needs a whole number, got "${String(text)}"`);
  return Number(text);
}

export function hostPort(text: string, what: string, defaultHost: string): { host: string; port: number } {
  const m = /^(?:(.+):)?(\d+)$/.exec(text);
  if (!m || Number(m[2]) > 65_535) throw new UsageError(`--${what} needs [HOST:]PORT, got "${text}"`);
  return { host: m[1] ?? defaultHost, port: Number(m[2]) };
}

function transportOf(values: Values): TransportOptions {
  const chosen = [values.tcp, values.listen, values.serial].filter((v) => v !== undefined);
  if (chosen.length !== 1) throw new UsageError('give exactly one of --tcp, --listen, --serial');
  if (values.tcp !== undefined) {
    if (!values.tcp.includes(':')) throw new UsageError(`--tcp needs HOST:PORT, got "${values.tcp}"`);
    return { kind: 'tcp-client', ...hostPort(values.tcp, 'tcp', '127.0.0.1') };
  }
  if (values.listen !== undefined) return { kind: 'tcp-server', ...hostPort(values.listen, 'listen', '0.0.0.0') };
  return { kind: 'serial', path: values.serial!, baudRate: int(values, 'baud', 38_400) };
}

const TERMINATORS: Record<string, Terminator> = { crlf: '\r\n', lf: '\n', none: '' };

function simulatorOf(values: Values): PlcSimulator {
  const mode = values.framing ?? 'line';
  if (!['line', 'fixed', 'stxetx'].includes(mode)) throw new UsageError(`--framing must be line, fixed or stxetx, got "${mode}"`);
  const terminator = TERMINATORS[values.terminator ?? 'crlf'];
  if (terminator === undefined) throw new UsageError(`--terminator must be crlf, lf or none, got "${values.terminator}"`);
  const lineSpeed = values['line-speed'] === undefined ? undefined : int(values, 'line-speed', 0);
  return new PlcSimulator({
    transport: transportOf(values),
    framing: { mode: mode as FramingMode, terminator, bcc: values.bcc ?? false },
    name: values.name ?? 'CNV01',
    host: values.host ?? 'MFC__',
    firstSeq: int(values, 'seq', 1),
    telegramLength: int(values, 'length', 160),
    requestTimeoutMs: int(values, 'timeout', 500),
    conveyor: new Conveyor([], { defaultMs: int(values, 'travel', 0) }),
    ...(lineSpeed ? { lineSpeed } : {}),
  });
}

/** Printable as one line: control and non-ASCII bytes escaped. */
function show(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : JSON.stringify(text);
}

function attachPrinter(sim: PlcSimulator, out: (line: string) => void): void {
  let lastSentAt = 0;
  sim.on('connected', (link) => out(`connected (${link.description})`));
  sim.on('disconnected', (link) => out(`disconnected (${link.description}): ${link.reason}`));
  sim.on('sent', (s: SentTelegram) => {
    lastSentAt = s.at;
    // Raw sends log their bytes: leave the line terminator out of the printout.
    for (const line of s.text.replace(/\r?\n$/, '').split('\n')) out(`>> ${show(line)}`);
  });
  sim.on('received', (r: ReceivedTelegram) => {
    const t = r.telegram;
    const note = t ? `${t.type} seq ${t.seq}, ${(r.at - lastSentAt).toFixed(1)} ms` : `unreadable: ${r.error}`;
    out(`<< ${show(r.text)}   (${note})`);
  });
  sim.on('dropped', (d) => out(`!! dropped ${d.bytes.length} bytes (${d.reason}): ${JSON.stringify(d.bytes.toString('latin1'))}`));
}

/** After a one-way telegram: any ERR_ within the window means the host refused it. */
async function noErrorBack(sim: PlcSimulator, waitMs: number, since: number): Promise<boolean> {
  try {
    await sim.expect('ERR_', () => true, waitMs, { since });
    return false;
  } catch {
    return true;
  }
}

/** The options a command reads, checked with the others before connecting. */
interface Settings {
  waitMs: number;
  maxSteps: number;
}

interface Command {
  /** Its arguments, for the message of a wrong call. */
  args: string;
  min: number;
  max: number;
  /**
   * The telegrams the arguments go into, encoded once before connecting: a barcode,
   * location or bitmap the encoder refuses is a bad argument, and nothing is sent.
   */
  telegrams?(a: string[]): Outgoing[];
  /** Checks of arguments that are not telegram fields. */
  check?(a: string[]): void;
  /** Runs it; true when the exchange went as the protocol says. */
  run(sim: PlcSimulator, a: string[], settings: Settings, out: (line: string) => void): Promise<boolean>;
}

const wholeNumber = (text: string | undefined) => text === undefined || /^\d+$/.test(text);

const COMMANDS: Record<string, Command> = {
  synq: {
    args: '',
    min: 0,
    max: 0,
    async run(sim) {
      await sim.synq();
      return true;
    },
  },
  req: {
    args: 'BARCODE LOCATION [TARGET]',
    min: 2,
    max: 3,
    telegrams: ([barcode, location, target]) => [{ type: 'REQ_', barcode: barcode!, actualLocation: location!, targetLocation: target ?? null }],
    async run(sim, [barcode, location, target], _settings, out) {
      const res = await sim.request({ barcode: barcode!, actualLocation: location!, targetLocation: target ?? null });
      out(`RES_: target ${res.targetLocation ?? 'none'}, group ${res.targetLocationGroup ?? 'none'}, code ${res.errorCode}`);
      return true;
    },
  },
  'run-tu': {
    args: 'BARCODE START',
    min: 2,
    max: 2,
    telegrams: ([barcode, start]) => [{ type: 'REQ_', barcode: barcode!, actualLocation: start! }],
    async run(sim, [barcode, start], { maxSteps }, out) {
      try {
        const trace = await sim.runTu(barcode!, start!, { maxSteps });
        for (const step of trace.steps) {
          out(`TU ${barcode} at ${step.at} → ${step.target ?? 'no target'} (RES_ after ${step.latencyMs.toFixed(1)} ms)`);
        }
        out(`TU ${barcode} visited ${trace.visited.join(' → ')}; ${trace.end === 'no-target' ? 'done' : 'step limit reached'}`);
        return trace.end === 'no-target';
      } catch (err) {
        if (err instanceof RunTuError) out(`TU ${barcode} visited ${err.trace.visited.join(' → ')} before the failure`);
        throw err;
      }
    },
  },
  upd: {
    args: 'BARCODE LOCATION',
    min: 2,
    max: 2,
    telegrams: ([barcode, location]) => [{ type: 'UPD_', barcode: barcode!, actualLocation: location! }],
    async run(sim, [barcode, location], { waitMs }) {
      const since = sim.mark();
      await sim.update(barcode!, location!);
      return noErrorBack(sim, waitMs, since);
    },
  },
  updx: {
    args: 'BARCODE LOCATION',
    min: 2,
    max: 2,
    telegrams: ([barcode, location]) => [{ type: 'UPDX', barcode: barcode!, actualLocation: location! }],
    async run(sim, [barcode, location]) {
      await sim.updateAcknowledged(barcode!, location!);
      return true;
    },
  },
  locu: {
    args: 'LOCATION BITMAP [GROUP]',
    min: 2,
    max: 3,
    telegrams: ([location, bitmap, group]) => [{ type: 'LOCU', location: location!, errorCode: bitmap!, locationGroupName: group ?? null }],
    async run(sim, [location, bitmap, group], { waitMs }) {
      const since = sim.mark();
      await sim.report(location!, bitmap!, group);
      return noErrorBack(sim, waitMs, since);
    },
  },
  sysu: {
    args: 'GROUP BITMAP',
    min: 2,
    max: 2,
    telegrams: ([group, bitmap]) => [{ type: 'SYSU', locationGroupName: group!, errorCode: bitmap! }],
    async run(sim, [group, bitmap], { waitMs }) {
      const since = sim.mark();
      await sim.groupState(group!, bitmap!);
      return noErrorBack(sim, waitMs, since);
    },
  },
  err: {
    args: 'GROUP CODE',
    min: 2,
    max: 2,
    telegrams: ([group, code]) => [{ type: 'ERR_', locationGroupName: group!, errorCode: code! }],
    async run(sim, [group, code], { waitMs }) {
      const since = sim.mark();
      await sim.error(group!, code!);
      return noErrorBack(sim, waitMs, since);
    },
  },
  heartbeat: {
    args: 'EVERY_MS [COUNT]',
    min: 1,
    max: 2,
    check([every, count]) {
      if (!wholeNumber(every) || !wholeNumber(count)) throw new UsageError('heartbeat needs whole numbers');
    },
    async run(sim, [every, count], _settings, out) {
      const n = Number(count ?? 5);
      let answered = 0;
      for (let i = 0; i < n; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, Number(every)));
        try {
          await sim.synq();
          answered++;
        } catch (err) {
          out(`!! ${(err as Error).message}`);
        }
      }
      out(`${answered} of ${n} SYNQ answered`);
      return answered === n;
    },
  },
  raw: {
    args: 'TEXT',
    min: 1,
    max: 1,
    async run(sim, [text], { waitMs }) {
      const since = sim.mark();
      await sim.sendRaw(sim.frame(text!), { fault: 'raw' });
      return noErrorBack(sim, waitMs, since);
    },
  },
  listen: {
    args: '[MS]',
    min: 0,
    max: 1,
    check([ms]) {
      if (!wholeNumber(ms)) throw new UsageError('listen needs a whole number of milliseconds');
    },
    async run(sim, [ms]) {
      await new Promise<void>((resolve) => {
        if (ms !== undefined) setTimeout(resolve, Number(ms));
        process.once('SIGINT', () => resolve());
        sim.once('disconnected', () => resolve());
      });
      return true;
    },
  },
};

/** The command and the number and form of its arguments; throws UsageError. */
function commandOf(positionals: string[]): { command: Command; rest: string[] } {
  const [name, ...rest] = positionals;
  if (name === undefined) throw new UsageError('no command given (see --help)');
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name]! : undefined;
  if (!command) throw new UsageError(`unknown command "${name}" (see --help)`);
  if (rest.length < command.min || rest.length > command.max) throw new UsageError(`usage: ${`${name} ${command.args}`.trim()}`);
  command.check?.(rest);
  return { command, rest };
}

/**
 * Encodes the command's telegrams once, without using up a sequence number: a field the
 * encoder refuses throws UsageError before anything is sent. The header (--name, --host,
 * --length) is checked for every command, also those that send nothing of their own.
 */
function checkTelegrams(sim: PlcSimulator, command: Command, rest: string[]): void {
  for (const fields of [{ type: 'SYNQ' } as Outgoing, ...(command.telegrams?.(rest) ?? [])]) {
    try {
      sim.encode({ ...fields, seq: sim.nextSeq });
    } catch (err) {
      if (err instanceof EncodeError) throw new UsageError(err.message);
      throw err;
    }
  }
}

/** parseArgs refuses unknown options and missing values with these codes. */
const isParseArgsError = (e: unknown) =>
  typeof (e as NodeJS.ErrnoException).code === 'string' && (e as NodeJS.ErrnoException).code!.startsWith('ERR_PARSE_ARGS_');

/**
 * The simulator's command line: `argv` without the program (`['--tcp', 'host:5020',
 * 'synq']`). Returns the exit code (EXIT); the caller sets it.
 */
export async function runSimulatorCli(argv: readonly string[], io: SimulatorIo): Promise<number> {
  const out = io.out ?? ((line: string) => console.log(line));
  const err = io.err ?? ((line: string) => console.error(line));
  // Messages start with the command without npm's `--`: `wms simulate: …`, `npm run plc:sim: …`.
  const prefix = io.program.replace(/\s+--$/, '');
  let sim: PlcSimulator | undefined;
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help) {
      out(usage(io.program));
      return EXIT.ok;
    }
    const protocol = values.protocol ?? 'osip';
    if (!(PROTOCOLS as readonly string[]).includes(protocol)) throw new UsageError(`--protocol must be ${PROTOCOLS.join(', ')}, got "${protocol}"`);
    if (protocol !== 'osip') {
      const { runSignalMode } = await import('./signals/cli.ts');
      return await runSignalMode(protocol as Exclude<(typeof PROTOCOLS)[number], 'osip'>, values, positionals, { out, input: io.input ?? process.stdin });
    }
    const signalOnly = SIGNAL_ONLY.find((key) => values[key] !== undefined);
    if (signalOnly) throw new UsageError(`--${signalOnly} applies to signal mode (--protocol opcua, modbus-tcp or modbus-rtu)`);
    const { command, rest } = commandOf(positionals);
    const settings: Settings = { waitMs: int(values, 'wait', 300), maxSteps: int(values, 'max-steps', 100) };
    sim = simulatorOf(values);
    checkTelegrams(sim, command, rest);
    attachPrinter(sim, out);
    if (values.listen !== undefined) {
      const address = await sim.listen();
      out(`listening on ${address.address}:${address.port}`);
    }
    await sim.connect({ timeoutMs: values.listen !== undefined ? 60_000 : 3000 });
    return (await command.run(sim, rest, settings, out)) ? EXIT.ok : EXIT.failed;
  } catch (e) {
    // One line, never a stack: what went wrong is the message (bad argument, refused connection, no reply).
    const message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ');
    if (isParseArgsError(e)) {
      // Node's text goes on about `--` for positionals; its first sentence is what matters.
      err(`${prefix}: ${message.split('. ')[0]} (see --help)`);
      return EXIT.badArguments;
    }
    err(`${prefix}: ${message}`);
    return e instanceof UsageError ? EXIT.badArguments : EXIT.failed;
  } finally {
    await sim?.close();
  }
}

/**
 * Whether Node was started with this file (`npm run plc:sim`, `node plc/simulator/cli.ts`);
 * never inside the appliance's bundle, where `import.meta.url` is undefined (scripts/build.ts).
 */
function startedAsScript(): boolean {
  const script = process.argv[1];
  if (typeof import.meta.url !== 'string' || script === undefined) return false;
  try {
    // Node names its main module by the real path, symbolic links resolved.
    return pathToFileURL(realpathSync(script)).href === import.meta.url;
  } catch {
    return false;
  }
}

if (startedAsScript()) {
  void runSimulatorCli(process.argv.slice(2), { program: 'npm run plc:sim --' }).then((code) => {
    process.exitCode = code;
  });
}
