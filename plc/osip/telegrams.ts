// The decoded telegrams, one interface per type of docs/plc.md ("Telegram catalogue") Optional
// fields are `undefined` when the PLC sent them as absent (`*`, `?`, blanks).
// Next to each barcode or location the exact field text is kept as `raw…`: a RES_
// echoes the REQ_'s fields unchanged, and a PLC-code lookup needs the text.

export interface OsipHeader {
  /** The length field as sent (not checked against the frame; see the warnings). */
  length: number;
  sender: string;
  receiver: string;
  /** 0..99999. */
  seq: number;
}

/** A header to write: the length field always comes from the options. */
export interface HeaderInput {
  sender: string;
  receiver: string;
  seq: number;
}

interface Base {
  header: OsipHeader;
}

/** A transport unit reported at a location (REQ_, UPD_, UPDX) or the RES_ echoing it. */
interface TuAtLocation {
  /** The barcode with its configured padding removed (`00000000000000004711` → `4711`). */
  barcode: string | undefined;
  /** The 20 characters as sent. */
  rawBarcode: string;
  /** Coordinate `AAAA/BBBB/CCCC/DDDD/EEEE`. */
  actualLocation: string | undefined;
  rawActualLocation: string;
  /** 8 characters as sent (`*`, `0`, `1` by convention; not checked here). */
  errorCode: string;
  /** Undefined when absent or malformed (malformed → a warning). */
  created: Date | undefined;
}

export interface ReqTelegram extends Base, TuAtLocation {
  type: 'REQ_';
  /** The PLC's own idea of the target, usually absent. */
  targetLocation: string | undefined;
  rawTargetLocation: string;
  /** Our extension (docs/plc.md, `reqExtension`): grams, 6 digits. */
  weightGrams?: number | undefined;
  /** Our extension: millimetres, 4 digits each. */
  lengthMm?: number | undefined;
  widthMm?: number | undefined;
  heightMm?: number | undefined;
}

export interface ResTelegram extends Base, TuAtLocation {
  type: 'RES_';
  /** The next location the PLC moves the TU to; undefined = hold / done. */
  targetLocation: string | undefined;
  rawTargetLocation: string;
  targetLocationGroup: string | undefined;
}

export interface UpdTelegram extends Base, TuAtLocation {
  type: 'UPD_';
}

/** Same layout as UPD_; answered with ACK_ (opt-in per channel). */
export interface UpdxTelegram extends Base, TuAtLocation {
  type: 'UPDX';
}

interface SynqTelegram extends Base {
  type: 'SYNQ';
  /** The PLC's clock. */
  time: Date | undefined;
}

interface SyncTelegram extends Base {
  type: 'SYNC';
  /** The host's clock. */
  time: Date | undefined;
}

export interface AckTelegram extends Base {
  type: 'ACK_';
  errorCode: string;
  created: Date | undefined;
}

/** Location (and/or group) state: note the group comes first on the wire. */
export interface LocuTelegram extends Base {
  type: 'LOCU';
  /** Trailing `_`/`*` stripped; undefined when empty. */
  locationGroupName: string | undefined;
  location: string | undefined;
  rawLocation: string;
  errorCode: string;
  created: Date | undefined;
}

export interface SysuTelegram extends Base {
  type: 'SYSU';
  locationGroupName: string | undefined;
  errorCode: string;
  created: Date | undefined;
}

export interface ErrTelegram extends Base {
  type: 'ERR_';
  locationGroupName: string | undefined;
  errorCode: string;
  created: Date | undefined;
}

export type Telegram =
  ReqTelegram | ResTelegram | UpdTelegram | UpdxTelegram | SynqTelegram | SyncTelegram | AckTelegram | LocuTelegram | SysuTelegram | ErrTelegram;

export type TelegramType = Telegram['type'];

type InputOf<T extends Telegram> = { type: T['type']; header: HeaderInput } & {
  [K in Exclude<keyof T, 'type' | 'header'>]?: T[K];
};

/**
 * A telegram to write. Every payload field is optional; when absent the encoder
 * writes: barcode `?` × 20, location `*` × 20, group filler × 20, error code
 * `********`, a date from the options' clock, extension values `*`. A `raw…` field
 * (exactly its width) wins over the value next to it and is written unchanged.
 */
export type TelegramInput = Telegram extends infer T ? (T extends Telegram ? InputOf<T> : never) : never;
