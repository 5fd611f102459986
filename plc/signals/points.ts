import type { SignalChannelConfig, SignalPointConfig } from './config.ts';
import type { SignalKind, WatchedPoint } from './driver.ts';
import { isBitAddress, kindOf, modbusAddress } from './modbus/address.ts';

// A channel's configured points as the channel works with them: the addresses it watches
// (with the kind of value each holds), and those it reads or writes on demand (an
// arrival's barcode, target and done; the heartbeat's counter). Ids: `p<index>` for a
// point's own signal, `p<index>.<role>` for the parts of an arrival or heartbeat.

export interface Access {
  address: string;
  kind: SignalKind;
}

export interface ChannelPoint {
  id: string;
  index: number;
  config: SignalPointConfig;
  /** The signals watched for this point (none: a heartbeat without plcLife). */
  watched: (WatchedPoint & { role: 'value' | 'trigger' | 'plcLife' })[];
  /** arrival: read and written on demand. */
  barcode?: Access;
  target?: Access;
  done?: Access;
  /** heartbeat: our counter. */
  counter?: Access;
}

/** The kind of value an address of this channel holds; `fallback` for OPC UA (the node id does not say). */
function kindAt(config: SignalChannelConfig, address: string, fallback: SignalKind, words: 1 | 2 = 1): SignalKind {
  if (config.protocol === 'opcua') return fallback;
  return kindOf(modbusAddress(address), words);
}

export function channelPoints(config: SignalChannelConfig): ChannelPoint[] {
  const opcua = config.protocol === 'opcua';
  return config.points.map((p, index): ChannelPoint => {
    const id = `p${index}`;
    const own = (opcua ? p.kind !== 'arrival' && p.node : p.kind !== 'arrival' && p.address) || '';
    switch (p.kind) {
      case 'plcState': {
        const words = p.words ?? 1;
        return { id, index, config: p, watched: [{ id, role: 'value', address: own, kind: kindAt(config, own, words === 2 ? 'dword' : 'word', words) }] };
      }
      case 'inboundLock':
      case 'outboundLock':
        return { id, index, config: p, watched: [{ id, role: 'value', address: own, kind: 'bit' }] };
      case 'groupState': {
        const kind = opcua ? (p.type ?? 'bit') : isBitAddress(modbusAddress(own)) ? 'bit' : 'word';
        return { id, index, config: p, watched: [{ id, role: 'value', address: own, kind }] };
      }
      case 'arrival': {
        const targetKind = opcua ? (p.targetType ?? 'string') : kindOf(modbusAddress(p.target));
        return {
          id,
          index,
          config: p,
          watched: [{ id: `${id}.trigger`, role: 'trigger', address: p.trigger, kind: 'bit' }],
          barcode: { address: p.barcode, kind: 'string' },
          target: { address: p.target, kind: targetKind },
          done: { address: p.done, kind: 'bit' },
        };
      }
      case 'heartbeat':
        return {
          id,
          index,
          config: p,
          watched: p.plcLife === undefined ? [] : [{ id: `${id}.plcLife`, role: 'plcLife', address: p.plcLife, kind: kindAt(config, p.plcLife, 'word') }],
          counter: { address: own, kind: kindAt(config, own, 'word') },
        };
    }
  });
}
