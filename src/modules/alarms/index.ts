import { daysAgo } from '../../core/retention.ts';
import type { ModuleDefinition } from '../module.ts';
import { alarmMetrics } from './metrics.ts';
import { alarmIndexLinks, alarmRoutes } from './routes.ts';
import { createAlarmService, type AlarmService } from './service.ts';
import { createAlarmStore } from './store.ts';

/** Alarms raised by events and watchers (PLC channels, the disk), acknowledged and shelved by people. */
export const alarms: ModuleDefinition<'alarms', AlarmService> = {
  name: 'alarms',
  create: ({ db, work, log, config, dataDir, use }) => {
    const common = use('common');
    const service = createAlarmService({
      work,
      store: createAlarmStore(db),
      log,
      options: { ...config.alarms, dataDir },
      groupAvailable: (name) => {
        const group = common.locationGroups.byNames([name])[0];
        return !!group && group.groupStateIn === 'AVAILABLE' && group.groupStateOut === 'AVAILABLE';
      },
    });
    const keepDays = config.events.keepDays;
    use('retention').add({ name: 'cleared alarms', prune: (batch) => service.prune(daysAgo(keepDays), batch) });
    return {
      service,
      routes: alarmRoutes(service),
      indexLinks: alarmIndexLinks,
      metrics: (registry) => alarmMetrics(registry, service),
      start: () => service.start(),
      stop: () => service.stop(),
    };
  },
};
