import type { Logger } from '../../../src/core/log.ts';
import type { PlcOperations, RouteListeners } from '../../port.ts';
import { RES_REASONS } from '../codes.ts';
import type { ChannelDirectory, ReplyInput } from '../port.ts';
import { groupField, locationField } from './fields.ts';

// A new route the adapter tells a channel of (adapter/unsolicited.ts), sent as an
// unsolicited RES_ (docs/routing.md): from where the unit stands to its next hop,
// with the channel's own sequence counter.

/** 20 characters, the barcode field. */
const BARCODE_WIDTH = 20;

export function unsolicitedRes(adapter: Pick<PlcOperations, 'plcCodeOf'>, directory: ChannelDirectory, log: Logger): RouteListeners {
  return {
    ownerOf: (locationId, groupNames) => directory.ownerOf(locationId, groupNames),
    routeChanged(channel, { barcode, at, next, group }) {
      const actual = locationField(adapter, at);
      const target = locationField(adapter, next);
      if (actual === undefined || target === undefined || barcode.length > BARCODE_WIDTH) {
        log.warn({ barcode, at, next, channel }, 'PLC: no unsolicited RES_, the barcode or a location does not fit its telegram field');
        return;
      }
      const telegram: ReplyInput = {
        type: 'RES_',
        // Written with the channel's barcode padding, as a PLC reads its own barcodes.
        barcode,
        rawActualLocation: actual,
        rawTargetLocation: target,
        targetLocationGroup: groupField(group),
        errorCode: RES_REASONS.ok,
      };
      const sent = directory.sendUnsolicited(channel, telegram);
      log.info({ barcode, at, next, channel, sent }, sent ? 'PLC: unsolicited RES_ sent' : 'PLC: unsolicited RES_ not sent, the channel cannot send now');
    },
  };
}
