import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

// The test helpers of the hall (test/support/) run here outside the test runner, as Node
// runs them. Two things they count on come from the runner: `afterAll`, with which each
// of them ends what it started (the namespaces, keepalived, the boxes, the nats-servers),
// and the bundler's `.sql: text` loader for the sources they import. Here `afterAll` of a
// helper is kept and run by the script as it ends (afterAllHooks), and `.sql` is read as
// text. Whatever else they take from vitest is vitest's own.

const hooks: (() => unknown)[] = [];

export function afterAll(hook: () => unknown): void {
  hooks.push(hook);
}

export { expect } from 'vitest';

/** Runs every helper's afterAll, the last registered first; one that fails does not keep the others from running. */
export async function afterAllHooks(): Promise<void> {
  for (const hook of hooks.splice(0).reverse())
    await Promise.resolve()
      .then(hook)
      .catch(() => undefined);
}

/** From now on a helper below test/support/ that imports vitest gets this module; `.sql` imports are text. */
export function outsideVitest(): void {
  const self = import.meta.url;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier === 'vitest' && context.parentURL?.includes('/test/support/')) return { url: self, shortCircuit: true };
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      if (!url.endsWith('.sql')) return nextLoad(url, context);
      return { format: 'module', shortCircuit: true, source: `export default ${JSON.stringify(readFileSync(fileURLToPath(url), 'utf8'))};` };
    },
  });
}
