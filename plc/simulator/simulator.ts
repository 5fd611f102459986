// A simulated conveyor PLC that speaks OSIP to the appliance (docs/plc.md ("The simulator")).
//
// It plays the PLC's side of the conversation (REQ_, UPD_, UPDX, LOCU, SYSU, ERR_,
// SYNQ out; RES_, SYNC, ACK_, ERR_ in) over TCP or a serial line, keeps a log of
// everything it sent and received, moves TUs over a conveyor model, and misbehaves
// on request (fault injection), always telling the caller the exact bytes it wrote.

import { withSeqText, withType, truncated } from './faults.ts';
import { PlcConversation } from './conversation.ts';
import type { Outgoing, SentTelegram } from './session.ts';

export * from './session.ts';
export { PlcConversation } from './conversation.ts';

/** The simulator: the session and the conversation, and misbehaviour on request (fault injection). */
export class PlcSimulator extends PlcConversation {
  // ---- fault injection; each returns exactly what went on the wire --------

  /** One telegram written in pieces of the given sizes (the rest last), `delayMs` apart. */
  async sendSplit(fields: Outgoing, chunks: number[], delayMs?: number): Promise<SentTelegram> {
    const link = this.requireLink();
    const { text, seq } = this.encode(fields);
    const split = delayMs === undefined ? { chunks } : { chunks, delayMs };
    return this.writeLogged(link, this.frame(text), text, seq, `split ${chunks.join('+')}`, split);
  }

  /** Several telegrams in one write. */
  async sendCoalesced(list: Outgoing[]): Promise<SentTelegram> {
    const link = this.requireLink();
    const encoded = list.map((fields) => this.encode(fields));
    const bytes = Buffer.concat(encoded.map((e) => this.frame(e.text)));
    return this.writeLogged(link, bytes, encoded.map((e) => e.text).join('\n'), encoded[0]?.seq, `coalesced ${list.length}`);
  }

  /** Line noise before a telegram, in the same write. */
  async sendWithGarbage(fields: Outgoing, garbage: string | Uint8Array = 'NOISE\x00\x7f'): Promise<SentTelegram> {
    const link = this.requireLink();
    const { text, seq } = this.encode(fields);
    const noise = typeof garbage === 'string' ? Buffer.from(garbage, 'latin1') : Buffer.from(garbage);
    return this.writeLogged(link, Buffer.concat([noise, this.frame(text)]), text, seq, 'garbage prefix');
  }

  /** A telegram cut after `keep` characters, framed as if it were whole. */
  async sendTruncated(fields: Outgoing, keep = 100): Promise<SentTelegram> {
    const link = this.requireLink();
    const { text, seq } = this.encode(fields);
    const short = truncated(text, keep);
    return this.writeLogged(link, this.frame(short), short, seq, `truncated to ${keep}`);
  }

  /** A whole telegram whose header claims another length. */
  async sendWrongLength(fields: Outgoing, lengthField = this.length - 1): Promise<SentTelegram> {
    return this.faulty({ ...fields, lengthField }, `length field ${lengthField}`);
  }

  /** A sequence number that is not a number, e.g. `00A42`. */
  async sendBadSeq(fields: Outgoing, seqText = '00A42'): Promise<SentTelegram> {
    const link = this.requireLink();
    const { text } = this.encode(fields);
    const bad = withSeqText(text, seqText);
    return this.writeLogged(link, this.frame(bad), bad, undefined, `sequence number ${seqText}`);
  }

  /** A well-formed telegram of a type nobody knows (a SYNQ's layout, type `ZZZZ`). */
  async sendUnknownType(type = 'ZZZZ'): Promise<SentTelegram> {
    const link = this.requireLink();
    const { text, seq } = this.encode({ type: 'SYNQ' });
    const unknown = withType(text, type);
    return this.writeLogged(link, this.frame(unknown), unknown, seq, `type ${type}`);
  }

  /** A telegram addressed to another host. */
  async sendWrongReceiver(fields: Outgoing, receiver = 'XXX__'): Promise<SentTelegram> {
    return this.faulty({ ...fields, receiver }, `receiver ${receiver}`);
  }

  /** The last telegram again, byte for byte (same sequence number, same payload, same time). */
  async resendLast(): Promise<SentTelegram> {
    const last = this.sent.findLast((s) => s.seq !== undefined && s.fault === undefined);
    if (!last) throw new Error('nothing sent yet');
    return this.writeLogged(this.requireLink(), last.bytes, last.text, last.seq, 'duplicate');
  }

  /** A new telegram with the last telegram's sequence number (a PLC whose counter was reset). */
  async counterReset(fields: Outgoing): Promise<SentTelegram> {
    const last = this.sent.findLast((s) => s.seq !== undefined);
    if (!last) throw new Error('nothing sent yet');
    return this.faulty({ ...fields, seq: last.seq! }, 'counter reset');
  }

  private async faulty(fields: Outgoing, fault: string): Promise<SentTelegram> {
    const link = this.requireLink();
    const { text, seq } = this.encode(fields);
    return this.writeLogged(link, this.frame(text), text, seq, fault);
  }
}
