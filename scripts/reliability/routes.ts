// The route table the fuzz suite walks: the one the appliance's router is built from,
// taken from an appliance started in this process the way src/main.ts composes it
// (on a throw-away data directory, closed at once). Only the routes' data is kept:
// method, path, the query parameters that select them, the body kinds, the grant.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { BodyKind, Method } from '../../src/http/router.ts';

export interface Operation {
  method: Method;
  path: string;
  /** Query parameters that select the route (`op=change-state` with its value). */
  query: readonly string[];
  optionalQuery: readonly string[];
  /** Body kinds it takes (`none` alone: it ignores a body). */
  body: readonly BodyKind[];
  grant: string;
  eventStream: boolean;
  ticket: boolean;
  /** Index resources (they may answer XML). */
  index: boolean;
  /** `POST /v1/locations?…`: how findings name it. */
  name: string;
}

let hooked = false;

/**
 * Outside the test runner the sources are run by Node itself, which does not know the
 * SQL migrations' `.sql` imports: they are read as text, as the bundle's loader does.
 */
function loadSqlAsText(): void {
  if (hooked || process.env.VITEST) return;
  hooked = true;
  registerHooks({
    load(url, context, nextLoad) {
      if (!url.endsWith('.sql')) return nextLoad(url, context);
      return { format: 'module', shortCircuit: true, source: `export default ${JSON.stringify(readFileSync(fileURLToPath(url), 'utf8'))};` };
    },
  });
}

export async function routeTable(): Promise<Operation[]> {
  loadSqlAsText();
  const { startAppliance } = await import('../../src/main.ts');
  const { loadConfig } = await import('../../src/config.ts');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-routes-'));
  try {
    const { config } = loadConfig(
      {},
      { values: {} },
      // Composed only for its route table, in the caller's process (a test's): it leaves that process's priority as it is.
      { server: { port: 0, host: '127.0.0.1', conveyorNice: 0 }, storage: { dataDir }, auth: { adminPassword: 'route-table-only' }, log: { level: 'silent' } },
    );
    const app = await startAppliance(config, { logDestination: new PassThrough() });
    try {
      return app.routes.map((r) => {
        const body =
          r.body === undefined
            ? r.method === 'GET' || r.method === 'DELETE'
              ? ['none' as const]
              : ['json' as const]
            : typeof r.body === 'string'
              ? [r.body]
              : [...r.body];
        const query = [...(r.query ?? [])];
        return {
          method: r.method,
          path: r.path,
          query,
          optionalQuery: [...(r.optionalQuery ?? [])],
          body,
          grant: r.grant,
          eventStream: r.eventStream ?? false,
          ticket: r.ticket ?? false,
          index: r.index ?? false,
          name: `${r.method} ${r.path}${query.length ? `?${query.join('&')}` : ''}`,
        };
      });
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
