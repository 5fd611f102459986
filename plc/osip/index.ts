/**
 * The OSIP telegram codec (docs/plc.md ("Telegram catalogue") for the wire format, docs/plc.md for the
 * rules). Pure functions, no I/O.
 *
 * - `osipOptions(overrides)` checks a channel's options once (defaults docs/plc.md).
 * - `decode(frame, options)` → `{ ok: true, telegram, warnings }` or
 *   `{ ok: false, reason, code, detail, header? }` with the ERR_ code to answer.
 * - `encode(input, options)` → exactly `telegramLength` characters; throws
 *   OsipEncodeError / CoordinateNotWritableError when a value does not fit.
 * - `replyHeader`, `errorTelegram`, `checkAddress` build and check replies.
 * - `ERR_CODES`, `RES_REASONS`: the 8-character codes we write.
 * - `coordinateFromField` / `fieldFromCoordinate`: the 5 × 4 location field.
 *
 * Beside the codec, not exported here: `protocol.ts` (OSIP on a link session: checks,
 * sequence numbers, duplicates, replies), `port.ts` (the telegram handler's seam) and
 * `warehouse/` (telegrams mapped onto the adapter's warehouse operations).
 */
export { ERR_CODES, RES_REASONS, type ErrCode, type ResReason } from './codes.ts';
export { coordinateFromField, fieldFromCoordinate, isAbsent } from './coordinate.ts';
export { decode, type DecodeResult, type RejectReason, type ReplyAddress } from './decode.ts';
export { encode } from './encode.ts';
export { CoordinateNotWritableError, OsipEncodeError, type EncodeProblem } from './errors.ts';
export { LAYOUTS, TELEGRAM_TYPES, minimumLength, type FieldSpec, type FieldKind } from './layout.ts';
export { DEFAULT_OSIP_OPTIONS, osipOptions, type BarcodePadding, type GroupTelegramType, type LocationPadding, type OsipOptions } from './options.ts';
export { checkAddress, errorTelegram, replyHeader, type ErrorTelegramExtras, type SeqRule } from './reply.ts';
export type * from './telegrams.ts';
export { formatTelegramDate, parseTelegramDate } from './time.ts';
