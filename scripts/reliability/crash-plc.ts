// The PLC's writes in the crash suite: a conveyor PLC on the appliance's OSIP
// `tcp-server` channel, booking transport units while the HTTP writers write.
//
// The PLC writer creates its units over HTTP (acknowledged like the other writers'
// creates), then reports them at conveyor locations with REQ_, one at a time: a unit
// standing on PLC_A is reported at PLC_B and the other way round, so that every REQ_
// moves its unit (an event `transportUnit.moved`, actor the channel). A REQ_ is
// acknowledged when its RES_ arrived: the appliance answers only after the booking is
// committed and on disk. Its writes are `Write`s like the HTTP writers' (`unit.move`
// to the reported location), checked after the restart by the same rules.

import net from 'node:net';
import { decode, Deframer, encode, frame } from '../../plc/simulator/index.ts';
import type { HttpClient } from './http.ts';
import type { Random } from './random.ts';
import type { Write } from './crash-workload.ts';
import { apiOf } from './appliance.ts';

/** The conveyor's two locations and the channel the PLC talks on. */
export const PLC_A = 'CPLC/0001/0001/0000/0000';
export const PLC_B = 'CPLC/0001/0002/0000/0000';
export const PLC_CHANNEL = 'CNV01';

/** The appliance's setting of the channel: a TCP server on a port of its choosing, no heartbeat expected. */
export const PLC_CHANNEL_CONFIG = {
  name: PLC_CHANNEL,
  transport: 'tcp-server',
  host: '127.0.0.1',
  port: 0,
  idleTimeoutMs: 3_600_000,
  staleTimeoutMs: 7_200_000,
};

/** Once, after the first start: the two locations, each the other's next hop (a REQ_ at one answers the other). */
export async function createConveyor(client: HttpClient, token: string): Promise<void> {
  const api = apiOf(client, token);
  for (const locationId of [PLC_A, PLC_B]) await api('POST', '/v1/locations', { locationId, locationGroupName: 'WAREHOUSE' });
  await api('PUT', '/v1/api/default-hops', [
    { source: PLC_A, next: PLC_B },
    { source: PLC_B, next: PLC_A },
  ]);
}

/** Where a unit on one conveyor location is reported next. */
const other = (at: string) => (at === PLC_A ? PLC_B : PLC_A);

/** The PLC of one round: its units, and its REQ_ until the appliance is gone. */
export class PlcWriter {
  readonly writes: Write[] = [];
  private readonly client: HttpClient;
  private readonly token: string;
  private readonly id: number;
  private readonly round: number;
  private readonly random: Random;
  private readonly units: { barcode: string; at: string }[] = [];
  private seq = 1;

  constructor(client: HttpClient, token: string, id: number, round: number, random: Random) {
    this.client = client;
    this.token = token;
    this.id = id;
    this.round = round;
    this.random = random;
  }

  /** Creates the units and books them until the appliance stops answering (it was killed). */
  async run(): Promise<void> {
    const port = await this.channelPort();
    if (port === undefined) return;
    for (let n = 1; n <= 3; n++) if (!(await this.createUnit(`C${this.id}R${this.round}N${n}`))) return;
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setNoDelay(true);
    const connected = await new Promise<boolean>((resolve) => socket.once('connect', () => resolve(true)).once('error', () => resolve(false)));
    if (!connected) return;
    const replies = new Replies(socket);
    try {
      for (;;) {
        const unit = this.random.pick(this.units);
        const to = other(unit.at);
        const write: Write = { kind: 'unit.move', key: unit.barcode, value: to, state: 'in-flight' };
        this.writes.push(write);
        const seq = this.seq;
        this.seq = seq >= 32_767 ? 1 : seq + 1;
        const text = encode({ type: 'REQ_', sender: PLC_CHANNEL, receiver: 'MFC__', seq, barcode: unit.barcode, actualLocation: to, errorCode: '********' });
        socket.write(frame(text));
        let answer: string | undefined;
        // The appliance's own heartbeats are not answers.
        do answer = await replies.next();
        while (answer !== undefined && decode(answer).type === 'SYNQ');
        // No answer: the connection ended with the process; the REQ_'s outcome is unknown.
        if (answer === undefined) return;
        const res = decode(answer);
        // The barcode field comes padded with zeros on the left (the writer's barcodes start with a letter).
        if (res.type !== 'RES_' || res.barcode?.replace(/^0+/, '') !== unit.barcode) {
          write.state = 'refused';
          write.reply = `answered ${answer}`;
          return;
        }
        write.state = 'acknowledged';
        unit.at = to;
      }
    } finally {
      socket.destroy();
    }
  }

  /** The port of the channel's server in this run of the appliance; undefined when it is gone already. */
  private async channelPort(): Promise<number | undefined> {
    try {
      const channel = (await apiOf(this.client, this.token)('GET', `/v1/plc-channels/${PLC_CHANNEL}`)) as { endpoint: string };
      const port = Number(/:(\d+)$/.exec(channel.endpoint)?.[1]);
      if (!port) throw new Error(`no port in ${PLC_CHANNEL}'s endpoint ${channel.endpoint}`);
      return port;
    } catch (err) {
      if (/no reply/.test((err as Error).message)) return undefined;
      throw err;
    }
  }

  /** A unit on PLC_A, over HTTP; false when the appliance is gone. */
  private async createUnit(barcode: string): Promise<boolean> {
    const write: Write = { kind: 'unit.create', key: barcode, value: PLC_A, state: 'in-flight' };
    this.writes.push(write);
    const outcome = await this.client.send({
      method: 'POST',
      path: '/v1/transport-units',
      headers: [
        ['Authorization', `Bearer ${this.token}`],
        ['Content-Type', 'application/json'],
      ],
      body: JSON.stringify({ barcode, actualLocation: PLC_A, transportUnitType: 'EURO' }),
    });
    if (outcome.kind === 'none') {
      if (outcome.error === 'ECONNREFUSED') write.state = 'unsent';
      return false;
    }
    if (outcome.status !== 201) {
      write.state = 'refused';
      write.reply = `${outcome.status} ${outcome.text.slice(0, 300)}`;
      return false;
    }
    write.state = 'acknowledged';
    this.units.push({ barcode, at: PLC_A });
    return true;
  }
}

/** The telegrams the appliance sends, one at a time as they are asked for; undefined once the connection is gone. */
class Replies {
  private readonly deframer = new Deframer();
  private readonly waiting: string[] = [];
  private wake: ((text: string | undefined) => void) | undefined;
  private ended = false;

  constructor(socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const event of this.deframer.push(chunk)) if (event.kind !== 'dropped') this.take(event.bytes.toString('latin1'));
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.ended = true;
      this.wake?.(undefined);
    });
  }

  next(): Promise<string | undefined> {
    const text = this.waiting.shift();
    if (text !== undefined || this.ended) return Promise.resolve(text);
    return new Promise((resolve) => (this.wake = resolve));
  }

  private take(text: string): void {
    const wake = this.wake;
    this.wake = undefined;
    if (wake) wake(text);
    else this.waiting.push(text);
  }
}
