import { daysAgo } from '../src/core/retention.ts';
import type { ModuleDefinition } from '../src/modules/module.ts';
import { createAdapter } from './adapter.ts';
import { PlcChannels } from './channels.ts';
import { PlcMetrics } from './metrics.ts';
import { DatabaseResendKeeper } from './resend-keeper.ts';
import { createOsipHandler } from './osip/warehouse/handler.ts';
import { plcIndexLinks, plcRoutes } from './routes.ts';
import { SignalLog } from './signals/log.ts';
import { SignalMetrics } from './signals/metrics.ts';
import { TelegramLog } from './telegram-log.ts';

/**
 * The PLC channels (docs/plc.md): OSIP telegrams and OPC UA / Modbus signals, mapped onto
 * one adapter of warehouse operations over the module services; their diagnostics, the
 * telegram log and its retention. Last in the module list: started once everything it
 * calls runs, stopped first, so that no telegram reaches a closing database.
 */
export const plc: ModuleDefinition<'plc', PlcChannels> = {
  name: 'plc',
  create: ({ config, db, log, work, logs, dataDir, use, options }) => {
    const telegramLog = new TelegramLog(logs);
    // A box of a pair keeps the duplicate caches where the standby gets them (docs/ha.md, "The PLC").
    const keeper = options.pair ? new DatabaseResendKeeper(db, work, log) : undefined;
    const channels = new PlcChannels(config.plc, log, { work, telegramLog, signalLog: new SignalLog(logs), dataDir, ...(keeper ? { keeper } : {}) });
    // One adapter for OSIP and signal channels: what a report means is decided once.
    const adapter = createAdapter({ work, log, common: use('common'), routing: use('routing'), transportOrders: use('transport-orders') });
    const osip = createOsipHandler({ adapter, log, channels });

    use('alarms').watchChannels(() => channels.states());
    use('events').history.traceTelegrams({
      forBarcode: (barcode, after, limit) => telegramLog.forBarcode(barcode, after, limit),
      withFields: (records) => channels.withFields(records),
    });
    const { keepDays, maxRows } = config.plc.telegramLog;
    use('retention').add({ name: 'telegram log', prune: (batch) => telegramLog.prune(daysAgo(keepDays), maxRows, batch) });

    return {
      service: channels,
      routes: plcRoutes(channels, telegramLog),
      indexLinks: plcIndexLinks,
      metrics: (registry) => {
        new PlcMetrics(registry, channels.list(), channels.lateAfterMs);
        new SignalMetrics(registry, channels.signalChannels());
      },
      start: async () => {
        try {
          await channels.start(osip, adapter);
        } catch (err) {
          osip.close();
          throw err;
        }
      },
      stop: async () => {
        await channels.stop();
        osip.close();
      },
    };
  },
};
