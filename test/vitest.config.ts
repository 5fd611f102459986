import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  plugins: [
    {
      // SQL migrations are imported as text, as esbuild's `.sql: text` loader does for the bundle.
      name: 'sql-as-text',
      transform(code, id) {
        if (id.endsWith('.sql')) return { code: `export default ${JSON.stringify(code)};`, map: null };
        return undefined;
      },
    },
  ],
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'plc/**/*.test.ts', 'db/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/slowest-reporter.ts'],
    // Deadlines for a busy box: a test waits for the state it asserts, and a wait that
    // holds on a quiet box in milliseconds may take seconds beside a second suite.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 20_000, interval: 50 } },
  },
});
