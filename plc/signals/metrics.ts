import client from 'prom-client';
import { SIGNAL_STATES, type SignalChannel, type SignalCounters } from './channel.ts';
import { perChannel } from '../metrics.ts';

// The signal channels (OPC UA, Modbus): each channel's state, the value changes it acted
// on, its handshakes, writes and errors — the channel's own counters, read at scrape
// time like the OSIP channels' connection counters (plc.ts, perChannel), not counted a
// second time.
// Label values are channel names from the configuration and states from the code.

export class SignalMetrics {
  constructor(registry: client.Registry, channels: readonly SignalChannel[]) {
    const registers = [registry];
    new client.Gauge({
      name: 'wms_plc_signal_channel_state',
      help: 'State of each signal channel (OPC UA, Modbus): 1 for the state it is in, 0 for the others',
      labelNames: ['channel', 'state'],
      registers,
      collect() {
        this.reset();
        for (const channel of channels) {
          for (const state of SIGNAL_STATES) this.set({ channel: channel.name, state }, channel.state === state ? 1 : 0);
        }
      },
    });
    const fromCounters = (name: string, help: string, read: (c: SignalCounters) => number) => perChannel(registry, name, help, channels, read);
    fromCounters('wms_plc_signal_changes_total', 'Value changes of signal points acted on (a value read again unchanged is not counted)', (c) => c.changes);
    fromCounters('wms_plc_signal_arrivals_total', 'Arrival handshakes of signal channels (trigger rose, barcode read, target written)', (c) => c.arrivals);
    // The channel counts its heartbeats apart from the handshakes' writes; the PLC confirmed both.
    fromCounters(
      'wms_plc_signal_writes_total',
      'Writes of signal channels confirmed by the PLC (targets, done bits, heartbeat counters)',
      (c) => c.writes + c.heartbeats,
    );
    fromCounters('wms_plc_signal_read_errors_total', 'Failed reads or subscriptions of signal points', (c) => c.readErrors);
    fromCounters('wms_plc_signal_write_errors_total', 'Failed writes of signal channels', (c) => c.writeErrors);
    fromCounters('wms_plc_signal_effect_errors_total', 'Value changes whose warehouse effect failed (nothing of it kept)', (c) => c.effectErrors);
    fromCounters(
      'wms_plc_signal_target_fallbacks_total',
      'Arrivals whose next location could not be written to the target, answered with the fallback instead',
      (c) => c.targetFallbacks,
    );
  }
}
