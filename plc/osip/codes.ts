// The 8-character codes the host writes into ERR_ and RES_ telegrams.

/**
 * Our ERR_ codes (docs/plc.md ("Bad telegrams")). OpenWMS defines only `00000010`; the others
 * are ours and leave that one's meaning unchanged.
 */
export const ERR_CODES = Object.freeze({
  /** Unknown telegram type (OpenWMS's code). */
  unknownType: '00000010',
  /** Frame too short for its type's last field. */
  tooShort: '00000011',
  /** Header field not numeric, non-ASCII byte, bad bitmap character. */
  badField: '00000012',
  /** Unknown location, location group or transport unit. */
  unknownEntity: '00000013',
  /** Receiver is not our host name, or sender is not the channel's peer. */
  wrongPeer: '00000014',
  /** Internal failure (database, bug); the telegram's effects were rolled back. */
  internal: '00000099',
});

export type ErrCode = (typeof ERR_CODES)[keyof typeof ERR_CODES];

/**
 * The reason codes a RES_ carries when the channel sets `resReasonCodes: true`
 * (docs/plc.md); otherwise a RES_ echoes the REQ_'s error code.
 */
export const RES_REASONS = Object.freeze({
  ok: '00000000',
  noOrder: '00000001',
  noRoute: '00000002',
  nextHopLocked: '00000003',
  noRead: '00000004',
  unknownLocationOrTu: '00000005',
});

export type ResReason = (typeof RES_REASONS)[keyof typeof RES_REASONS];
