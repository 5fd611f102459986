import type { Route, Router } from '../http/router.ts';
import { MODULES, type Services } from './index.ts';
import type { AppContext, Module, ModuleName } from './module.ts';

// The module list brought to life: created in order with one context, the route table
// and the entry index gathered from them, started in order and stopped in reverse.

/** The context without what the assembly itself provides. */
type Foundation = Omit<AppContext, 'use' | 'routes' | 'router' | 'indexLinks' | 'url'> & {
  /** Builds the route table (validated at boot: paths well formed, unique, each with a grant). */
  newRouter(routes: readonly Route[]): Router;
  /** The appliance's address, once HTTP listens. */
  url(): string;
};

export interface Assembly {
  /** The service of a module by name. */
  module<N extends ModuleName>(name: N): Services[N];
  routes: readonly Route[];
  router: Router;
  indexLinks: Readonly<Record<string, string>>;
  /** Starts the modules in order; if one fails, those started are stopped again and the error thrown. */
  start(): Promise<void>;
  /** Stops the started modules in reverse order; a module that fails to stop is logged and the rest go on. */
  stop(): Promise<void>;
}

export async function assemble(foundation: Foundation): Promise<Assembly> {
  const { newRouter, url, ...base } = foundation;
  const services = new Map<string, unknown>();
  const created: { name: string; module: Module<unknown> }[] = [];
  let table: { routes: readonly Route[]; router: Router; indexLinks: Record<string, string> } | undefined;
  const built = () => {
    if (!table) throw new Error('the route table is known once every module is created');
    return table;
  };
  const use = <N extends ModuleName>(name: N): Services[N] => {
    if (!services.has(name)) throw new Error(`module ${name} is not defined before the one that uses it (src/modules/index.ts)`);
    return services.get(name) as Services[N];
  };
  const ctx: AppContext = { ...base, use, url, routes: () => built().routes, router: () => built().router, indexLinks: () => built().indexLinks };

  for (const definition of MODULES) {
    const module = (await definition.create(ctx)) as Module<unknown>;
    services.set(definition.name, module.service);
    created.push({ name: definition.name, module });
  }
  const routes = created.flatMap(({ module }) => module.routes ?? []);
  const indexLinks = Object.assign({}, ...created.map(({ module }) => module.indexLinks ?? {})) as Record<string, string>;
  table = { routes, router: newRouter(routes), indexLinks };

  const registry = use('system').registry;
  for (const { module } of created) {
    if (base.thread === 'conveyor') module.metrics?.(registry);
    if (base.edge) module.edgeMetrics?.(registry);
  }
  // The seeds write: the conveyor thread's, before the HTTP thread starts.
  if (base.thread === 'conveyor') for (const { module } of created) await module.prepare?.();

  const started: typeof created = [];
  const stop = async () => {
    for (const { name, module } of started.reverse()) {
      try {
        await module.stop?.();
      } catch (err) {
        base.log.error({ err, module: name }, 'stopping a module failed');
      }
    }
    started.length = 0;
  };
  return {
    module: use,
    routes,
    router: table.router,
    indexLinks,
    async start() {
      try {
        for (const entry of created) {
          await entry.module.start?.();
          started.push(entry);
        }
      } catch (err) {
        await stop();
        throw err;
      }
    },
    stop,
  };
}
