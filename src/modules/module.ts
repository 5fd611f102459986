import type { Route } from '../http/router.ts';

// How a module plugs into the appliance: one descriptor with its routes, the links of
// its index for the entry index, and what it runs beside requests (timers, links to
// the outside). The composition root (src/main.ts) builds the appliance from a list of
// descriptors: adding a module is adding it to that list. Modules start in list order
// once the HTTP server listens and stop in reverse order before it closes.

export interface ModuleDescriptor {
  /** For logs. */
  name: string;
  routes: readonly Route[];
  /** Link name → path of the module's index, shown by `GET /index`. */
  indexLinks?: Record<string, string>;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}
