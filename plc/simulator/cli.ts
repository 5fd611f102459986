// `npm run plc:sim -- [options] <command>`: the conveyor simulator by hand, against a
// running appliance. Prints every telegram sent (>>) and received (<<); exit code 0
// when the exchange went as the protocol says, 1 otherwise (no reply, an ERR_ back,
// no connection, bad arguments).
//
// Runs directly on Node 24 (type stripping): only node: modules and files of this
// directory are imported, serialport only when --serial is given.

import { parseArgs } from 'node:util';
import { Conveyor } from './conveyor.ts';
import type { FramingMode, Terminator } from './framing.ts';
import type { TransportOptions } from './link.ts';
import { PlcSimulator, RunTuError, type ReceivedTelegram, type SentTelegram } from './simulator.ts';

const USAGE = `Usage: npm run plc:sim -- [options] <command> [arguments]

Simulates a conveyor PLC speaking OSIP (docs/plc.md) to the appliance.

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

Examples:
  npm run plc:sim -- --tcp 127.0.0.1:5020 --name CNV01 synq
  npm run plc:sim -- --tcp 127.0.0.1:5020 run-tu 4711 CONV/0001/0001/0000/0000
  npm run plc:sim -- --tcp 127.0.0.1:5020 locu CONV/0001/0002/0000/0000 '0012***1'
  npm run plc:sim -- --listen 5021 --name CNV02 synq
  npm run plc:sim -- --serial /dev/ttyUSB0 --baud 38400 --framing stxetx --bcc synq
`;

class UsageError extends Error {}

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
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function int(values: Values, key: keyof Values, fallback: number): number {
  const text = values[key];
  if (text === undefined) return fallback;
  if (typeof text !== 'string' || !/^\d+$/.test(text)) throw new UsageError(`--${key} needs a whole number, got "${String(text)}"`);
  return Number(text);
}

function hostPort(text: string, what: string, defaultHost: string): { host: string; port: number } {
  const m = /^(?:(.+):)?(\d+)$/.exec(text);
  if (!m) throw new UsageError(`--${what} needs [HOST:]PORT, got "${text}"`);
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

function args(positionals: string[], min: number, max: number, usage: string): string[] {
  if (positionals.length < min || positionals.length > max) throw new UsageError(`usage: ${usage}`);
  return positionals;
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

async function run(command: string, rest: string[], sim: PlcSimulator, values: Values, out: (line: string) => void): Promise<boolean> {
  const waitMs = int(values, 'wait', 300);
  const since = sim.mark();
  switch (command) {
    case 'synq': {
      args(rest, 0, 0, 'synq');
      await sim.synq();
      return true;
    }
    case 'req': {
      const [barcode, location, target] = args(rest, 2, 3, 'req BARCODE LOCATION [TARGET]');
      const res = await sim.request({ barcode: barcode!, actualLocation: location!, targetLocation: target ?? null });
      out(`RES_: target ${res.targetLocation ?? 'none'}, group ${res.targetLocationGroup ?? 'none'}, code ${res.errorCode}`);
      return true;
    }
    case 'run-tu': {
      const [barcode, start] = args(rest, 2, 2, 'run-tu BARCODE START');
      try {
        const trace = await sim.runTu(barcode!, start!, { maxSteps: int(values, 'max-steps', 100) });
        for (const step of trace.steps) {
          out(`TU ${barcode} at ${step.at} → ${step.target ?? 'no target'} (RES_ after ${step.latencyMs.toFixed(1)} ms)`);
        }
        out(`TU ${barcode} visited ${trace.visited.join(' → ')}; ${trace.end === 'no-target' ? 'done' : 'step limit reached'}`);
        return trace.end === 'no-target';
      } catch (err) {
        if (err instanceof RunTuError) out(`TU ${barcode} visited ${err.trace.visited.join(' → ')} before the failure`);
        throw err;
      }
    }
    case 'upd': {
      const [barcode, location] = args(rest, 2, 2, 'upd BARCODE LOCATION');
      await sim.update(barcode!, location!);
      return noErrorBack(sim, waitMs, since);
    }
    case 'updx': {
      const [barcode, location] = args(rest, 2, 2, 'updx BARCODE LOCATION');
      await sim.updateAcknowledged(barcode!, location!);
      return true;
    }
    case 'locu': {
      const [location, bitmap, group] = args(rest, 2, 3, 'locu LOCATION BITMAP [GROUP]');
      await sim.report(location!, bitmap!, group);
      return noErrorBack(sim, waitMs, since);
    }
    case 'sysu': {
      const [group, bitmap] = args(rest, 2, 2, 'sysu GROUP BITMAP');
      await sim.groupState(group!, bitmap!);
      return noErrorBack(sim, waitMs, since);
    }
    case 'err': {
      const [group, code] = args(rest, 2, 2, 'err GROUP CODE');
      await sim.error(group!, code!);
      return noErrorBack(sim, waitMs, since);
    }
    case 'heartbeat': {
      const [every, count] = args(rest, 1, 2, 'heartbeat EVERY_MS [COUNT]');
      if (!/^\d+$/.test(every!) || (count !== undefined && !/^\d+$/.test(count))) throw new UsageError('heartbeat needs whole numbers');
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
    }
    case 'raw': {
      const [text] = args(rest, 1, 1, 'raw TEXT');
      await sim.sendRaw(sim.frame(text!), { fault: 'raw' });
      return noErrorBack(sim, waitMs, since);
    }
    case 'listen': {
      const [ms] = args(rest, 0, 1, 'listen [MS]');
      if (ms !== undefined && !/^\d+$/.test(ms)) throw new UsageError('listen needs a whole number of milliseconds');
      await new Promise<void>((resolve) => {
        if (ms !== undefined) setTimeout(resolve, Number(ms));
        process.once('SIGINT', () => resolve());
        sim.once('disconnected', () => resolve());
      });
      return true;
    }
    default:
      throw new UsageError(`unknown command "${command}" (see --help)`);
  }
}

export async function main(argv: string[], out = (line: string) => console.log(line), err = (line: string) => console.error(line)): Promise<number> {
  let sim: PlcSimulator | undefined;
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help) {
      out(USAGE);
      return 0;
    }
    const [command, ...rest] = positionals;
    if (command === undefined) throw new UsageError('no command given (see --help)');
    sim = simulatorOf(values);
    attachPrinter(sim, out);
    if (values.listen !== undefined) {
      const address = await sim.listen();
      out(`listening on ${address.address}:${address.port}`);
    }
    await sim.connect({ timeoutMs: values.listen !== undefined ? 60_000 : 3000 });
    const ok = await run(command, rest, sim, values, out);
    return ok ? 0 : 1;
  } catch (e) {
    if (e instanceof UsageError) err(`plc:sim: ${e.message}`);
    else err(`plc:sim: ${(e as Error).message}`);
    return 1;
  } finally {
    await sim?.close();
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
