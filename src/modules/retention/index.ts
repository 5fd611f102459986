import { Retention } from '../../core/retention.ts';
import type { ModuleDefinition } from '../module.ts';

/**
 * Retention of the logs that grow with every change and telegram: the modules that own
 * one (events, the telegram log, cleared alarms, hub commands) add their prune task when
 * they are created; one timer prunes them in small batches once the appliance runs.
 */
export const retention: ModuleDefinition<'retention', Retention> = {
  name: 'retention',
  create: ({ log }) => {
    const service = new Retention(log);
    return { service, start: () => service.start(), stop: () => service.stop() };
  },
};
