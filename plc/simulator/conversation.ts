import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  decodeLocation,
  encodeBarcode,
  encodeLocation,
  type AckTelegram,
  type OsipTime,
  type ResTelegram,
  type Telegram,
  type TimeTelegram,
} from './encoder.ts';
import { UnknownSegmentError } from './conveyor.ts';
import {
  answers,
  SimulatorSession,
  RunTuError,
  type Exchange,
  type Heartbeat,
  type Outgoing,
  type ReceivedTelegram,
  type RequestFields,
  type SentTelegram,
  type TuTrace,
} from './session.ts';

// The PLC's side of the conversation over the session: a request and its answer, the
// time sync, heartbeats, reports of units, locations and groups, and a unit driven
// through every hop to its target (runTu).

export class PlcConversation extends SimulatorSession {
  // ---- the conversation --------------------------------------------------------

  /** Sends a telegram and waits for the reply the predicate picks; the waiter is set up before the write. */
  protected async exchange<T extends Telegram>(
    fields: Outgoing,
    isReply: (telegram: Telegram, seq: number) => telegram is T,
    timeoutMs: number,
    what: string,
  ): Promise<Exchange<T>> {
    const link = this.requireLink();
    const { text, seq } = this.encode(fields);
    const reply = this.wait((r) => r.telegram !== undefined && isReply(r.telegram, seq), timeoutMs, what, { exclusive: true });
    const writing = this.writeLogged(link, this.frame(text), text, seq);
    // The reply can only come after the write; if the write fails, so does the exchange.
    reply.catch(() => {});
    const sent = await writing;
    const got = await reply;
    return { sent, reply: got.telegram as T, latencyMs: got.at - sent.at };
  }

  /** REQ_ → the matching RES_ (same barcode and actual location) within the timeout, with timing. */
  async requestExchange(req: RequestFields, options: { timeoutMs?: number } = {}): Promise<Exchange<ResTelegram>> {
    const barcode = encodeBarcode(req.barcode);
    const location = encodeLocation(req.actualLocation);
    const isRes = (t: Telegram): t is ResTelegram =>
      t.type === 'RES_' && (t.barcode ?? '?'.repeat(20)) === barcode && t.actualLocation !== null && encodeLocation(t.actualLocation) === location;
    const fields: Outgoing = {
      type: 'REQ_',
      barcode: req.barcode,
      actualLocation: req.actualLocation,
      targetLocation: req.targetLocation ?? null,
      errorCode: req.errorCode ?? '********',
    };
    if (req.created !== undefined) fields.created = req.created;
    return this.exchange(fields, isRes, options.timeoutMs ?? this.requestTimeoutMs, `RES_ for ${req.barcode} at ${req.actualLocation}`);
  }

  /** REQ_ → the matching RES_; rejects when none comes within the timeout (default 500 ms). */
  async request(req: RequestFields, options: { timeoutMs?: number } = {}): Promise<ResTelegram> {
    return (await this.requestExchange(req, options)).reply;
  }

  /** SYNQ → the SYNC that answers it (sequence number +1, or echoed). */
  async synq(options: { timeoutMs?: number; time?: OsipTime } = {}): Promise<TimeTelegram> {
    return (await this.synqExchange(options)).reply;
  }

  async synqExchange(options: { timeoutMs?: number; time?: OsipTime } = {}): Promise<Exchange<TimeTelegram>> {
    const isSync = (t: Telegram, seq: number): t is TimeTelegram => t.type === 'SYNC' && answers(t.seq, seq);
    const fields: Outgoing = options.time === undefined ? { type: 'SYNQ' } : { type: 'SYNQ', time: options.time };
    return this.exchange(fields, isSync, options.timeoutMs ?? this.requestTimeoutMs, 'SYNC');
  }

  /** SYNQ now and then every `everyMs` until stop() or close(); paused by silence(). */
  heartbeat(everyMs: number): Heartbeat {
    let sent = 0;
    let answered = 0;
    let paused = 0;
    const open = new Set<number>();
    const onReceived = (r: ReceivedTelegram) => {
      const t = r.telegram;
      if (t?.type !== 'SYNC') return;
      for (const seq of open) {
        if (answers(t.seq, seq)) {
          open.delete(seq);
          answered++;
          return;
        }
      }
    };
    const tick = () => {
      if (!this.current?.isOpen) return;
      if (performance.now() < this.silentUntil) {
        paused++;
        return;
      }
      const { text, seq } = this.encode({ type: 'SYNQ' });
      open.add(seq);
      sent++;
      this.writeLogged(this.current, this.frame(text), text, seq).catch(() => open.delete(seq));
    };
    const timer = setInterval(tick, everyMs);
    const stop = () => {
      clearInterval(timer);
      this.off('received', onReceived);
      this.heartbeats.delete(stop);
    };
    this.on('received', onReceived);
    this.heartbeats.add(stop);
    tick();
    return {
      get sent() {
        return sent;
      },
      get answered() {
        return answered;
      },
      get paused() {
        return paused;
      },
      stop,
    };
  }

  /** Sends nothing for `ms` (heartbeats pause), e.g. longer than the channel's idleTimeout. */
  async silence(ms: number): Promise<void> {
    this.silentUntil = Math.max(this.silentUntil, performance.now() + ms);
    await sleep(ms);
  }

  /** UPD_: the TU passed a location (no reply expected). */
  async update(barcode: string | null, location: string, errorCode = '********'): Promise<SentTelegram> {
    return this.send({ type: 'UPD_', barcode, actualLocation: location, errorCode });
  }

  /** UPDX → ACK_ (same sequence number, docs/plc.md). */
  async updateAcknowledged(barcode: string | null, location: string, options: { errorCode?: string; timeoutMs?: number } = {}): Promise<AckTelegram> {
    const isAck = (t: Telegram, seq: number): t is AckTelegram => t.type === 'ACK_' && t.seq === seq;
    const fields: Outgoing = { type: 'UPDX', barcode, actualLocation: location, errorCode: options.errorCode ?? '********' };
    return (await this.exchange(fields, isAck, options.timeoutMs ?? this.requestTimeoutMs, 'ACK_')).reply;
  }

  /** LOCU: the state bitmap of a location (and optionally its group), e.g. `0012***1`. */
  async report(location: string | null, bitmap: string, group?: string): Promise<SentTelegram> {
    return this.send({ type: 'LOCU', location, errorCode: bitmap, locationGroupName: group ?? null });
  }

  /** SYSU: the state bitmap of a location group, e.g. `******1*`. */
  async groupState(group: string, bitmap: string): Promise<SentTelegram> {
    return this.send({ type: 'SYSU', locationGroupName: group, errorCode: bitmap });
  }

  /** ERR_: a group error reported by the PLC. */
  async error(group: string | null, code: string): Promise<SentTelegram> {
    return this.send({ type: 'ERR_', locationGroupName: group, errorCode: code });
  }

  /**
   * Moves a TU over the conveyor as a PLC does: REQ_ at the current location → RES_ →
   * travel → REQ_ at the RES_'s target, until a RES_ has no target or `maxSteps`
   * REQ_ have been sent. Rejects with a RunTuError (carrying the trace so far) when a
   * RES_ does not come or the conveyor has no such segment.
   */
  async runTu(barcode: string, start: string, options: { maxSteps?: number; timeoutMs?: number; errorCode?: string } = {}): Promise<TuTrace> {
    const maxSteps = options.maxSteps ?? 100;
    let at = decodeLocation(encodeLocation(start))!;
    const trace: TuTrace = { barcode, visited: [at], steps: [], end: 'step-limit' };
    for (let step = 0; step < maxSteps; step++) {
      let exchange: Exchange<ResTelegram>;
      try {
        const req: RequestFields = { barcode, actualLocation: at };
        if (options.errorCode !== undefined) req.errorCode = options.errorCode;
        exchange = await this.requestExchange(req, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
      } catch (err) {
        throw new RunTuError(`TU ${barcode} at ${at}: ${(err as Error).message}`, trace, err);
      }
      const target = exchange.reply.targetLocation;
      let travelMs = 0;
      if (target !== null) {
        try {
          travelMs = this.conveyor.travelMs(at, target);
        } catch (err) {
          if (!(err instanceof UnknownSegmentError)) throw err;
          trace.steps.push({ at, res: exchange.reply, target, latencyMs: exchange.latencyMs, travelMs: 0 });
          throw new RunTuError(`TU ${barcode}: ${err.message}`, trace, err);
        }
      }
      trace.steps.push({ at, res: exchange.reply, target, latencyMs: exchange.latencyMs, travelMs });
      if (target === null) {
        trace.end = 'no-target';
        return trace;
      }
      if (travelMs > 0) await sleep(travelMs);
      at = target;
      trace.visited.push(at);
    }
    return trace;
  }
}
