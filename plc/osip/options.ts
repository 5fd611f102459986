// Codec options (docs/plc.md, defaults from docs/plc.md). Everything a site may need
// to change per channel lives here; the field layout itself does not.

/** How a barcode shorter than its 20-character field is written. */
export type BarcodePadding = { char: string; side: 'left' | 'right' } | 'none';

/**
 * How each of the five coordinate parts is brought to 4 characters: text parts
 * (anything that is not all digits) and numeric parts have their own pad
 * character; `null` means "no padding", so such a part must already be 4 long.
 */
export interface LocationPadding {
  /** Right-pads text parts (`SL` → `SL__`). */
  text: string | null;
  /** Left-pads all-digit parts (`1` → `0001`). */
  numeric: string | null;
}

/** The telegram types whose payload carries a location-group name. */
export type GroupTelegramType = 'LOCU' | 'SYSU' | 'RES_' | 'ERR_';

export interface OsipOptions {
  /** Total telegram length written into the length field and padded to (default 160). */
  telegramLength: number;
  /** The 3-character sync field that starts every telegram (default `###`). */
  sync: string;
  /** Pads every telegram to its full length (default `*`). */
  filler: string;
  /** Our 5-character name: the sender of what we write (default `MFC__`). */
  hostName: string;
  /** Default: left-padded with `0`, as OpenWMS barcodes are. */
  barcodePadding: BarcodePadding;
  /** Default: text parts `_`, numeric parts `0`, as OpenWMS sample data. */
  locationPadding: LocationPadding;
  /** Group-name filler per type: `_` in LOCU/SYSU, `*` in RES_/ERR_ (what an OpenWMS reader expects). */
  groupFiller: Record<GroupTelegramType, string>;
  /** Our REQ_ weight/dimension extension in the filler area; off by default. */
  reqExtension: boolean;
  /** IANA zone of the 14-digit telegram dates (default `UTC`). */
  timeZone: string;
  /** The time written when a date field is not given. */
  clock: () => Date;
}

export const DEFAULT_OSIP_OPTIONS: Readonly<OsipOptions> = Object.freeze({
  telegramLength: 160,
  sync: '###',
  filler: '*',
  hostName: 'MFC__',
  barcodePadding: Object.freeze({ char: '0', side: 'left' as const }),
  locationPadding: Object.freeze({ text: '_', numeric: '0' }),
  groupFiller: Object.freeze({ LOCU: '_', SYSU: '_', RES_: '*', ERR_: '*' }),
  reqExtension: false,
  timeZone: 'UTC',
  clock: () => new Date(),
});

/** The end of the longest standard payload (RES_, offset 128) and of our REQ_ extension (126). */
const MIN_LENGTH = 129;
const MIN_LENGTH_WITH_EXTENSION = 127;

const PRINTABLE = /^[\x20-\x7e]*$/;

export function isPrintable(text: string): boolean {
  return PRINTABLE.test(text);
}

function checkChar(name: string, value: string | null): void {
  if (value === null) return;
  if (value.length !== 1 || !isPrintable(value)) {
    throw new RangeError(`OSIP option ${name} must be one printable ASCII character, got ${JSON.stringify(value)}`);
  }
}

/**
 * Fills in the defaults and checks the options once, so encode/decode can trust
 * them. Throws a RangeError naming the bad option (a configuration error, found at
 * start-up).
 */
export function osipOptions(overrides: Partial<OsipOptions> = {}): OsipOptions {
  const o: OsipOptions = {
    ...DEFAULT_OSIP_OPTIONS,
    ...overrides,
    groupFiller: { ...DEFAULT_OSIP_OPTIONS.groupFiller, ...overrides.groupFiller },
    locationPadding: { ...DEFAULT_OSIP_OPTIONS.locationPadding, ...overrides.locationPadding },
  };
  if (!Number.isInteger(o.telegramLength) || o.telegramLength < MIN_LENGTH || o.telegramLength > 99_999) {
    throw new RangeError(`OSIP option telegramLength must be an integer ${MIN_LENGTH}..99999, got ${o.telegramLength}`);
  }
  if (o.reqExtension && o.telegramLength < MIN_LENGTH_WITH_EXTENSION) {
    throw new RangeError('OSIP option reqExtension needs telegramLength >= 127');
  }
  // The header layout is fixed at 23 characters, so the sync is exactly 3.
  if (o.sync.length !== 3 || !isPrintable(o.sync)) {
    throw new RangeError(`OSIP option sync must be 3 printable ASCII characters, got ${JSON.stringify(o.sync)}`);
  }
  checkChar('filler', o.filler);
  if (o.hostName.length !== 5 || !isPrintable(o.hostName)) {
    throw new RangeError(`OSIP option hostName must be 5 printable ASCII characters, got ${JSON.stringify(o.hostName)}`);
  }
  if (o.barcodePadding !== 'none') {
    checkChar('barcodePadding.char', o.barcodePadding.char);
    if (o.barcodePadding.side !== 'left' && o.barcodePadding.side !== 'right') {
      throw new RangeError('OSIP option barcodePadding.side must be left or right');
    }
  }
  checkChar('locationPadding.text', o.locationPadding.text);
  checkChar('locationPadding.numeric', o.locationPadding.numeric);
  for (const [type, ch] of Object.entries(o.groupFiller)) checkChar(`groupFiller.${type}`, ch);
  // UTC needs no time zone data (osip/time.ts has its own path for it); loading that
  // data to check the name costs 30 ms of every start-up.
  if (o.timeZone !== 'UTC') {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: o.timeZone });
    } catch {
      throw new RangeError(`OSIP option timeZone is not a known time zone: ${JSON.stringify(o.timeZone)}`);
    }
  }
  return o;
}
