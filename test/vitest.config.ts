import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const PAIR_TESTS = ['test/ha-*.test.ts'];
/**
 * The pair's three fixed faults in network namespaces, boxes kept running as their service
 * would (test/ha-rounds.test.ts), run in `npm test`; the hall's other test
 * (`npm run test:hall`) restarts no box that steps down as a node comes back, and waits
 * for roles in a set order: it runs on its own.
 */
const HALL_TESTS = ['test/ha-netns.test.ts'];

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
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/slowest-reporter.ts'],
    // One file per core and one more: the tests wait a third of their time on the
    // processes, browsers and sockets they drive, and vitest's own default (a core
    // less than the box has) runs the suite one file at a time on two cores. Measured
    // on a quiet 2-vCPU box, whole suite: 1 worker 567 s, 2 workers 385 s, 3 workers
    // 368 s (README, "Testing"); with the settings below and 112 files, 3 workers 285 s,
    // 4 workers 301 s. At most 8: every worker may run a Chromium.
    maxWorkers: Math.min(availableParallelism() + 1, 8),
    // A worker runs file after file in one process instead of a fresh one per file: the
    // appliance's modules, zod schemas and playwright load once per worker. Measured on
    // the same box, 3 workers: 380 s isolated, 339 s not. The files share no state: each
    // starts its own appliances, servers and browsers on its own ports and folders.
    isolate: false,
    // Deadlines for a busy box: a test waits for the state it asserts, and a wait that
    // holds on a quiet box in milliseconds may take seconds beside a second suite.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000, interval: 50 } },
    projects: [
      {
        extends: true,
        test: { name: 'appliance', include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'plc/**/*.test.ts', 'db/**/*.test.ts'], exclude: PAIR_TESTS },
      },
      // The pair's tests each run a three-node NATS cluster and two appliances (test/ha-*):
      // after the rest of the suite and one file at a time, so that no two of them share
      // the cores, and elections and leases keep the times they have on a box of a site.
      {
        extends: true,
        test: {
          name: 'pair',
          include: PAIR_TESTS,
          exclude: process.env.WMS_TEST_HALL ? [] : HALL_TESTS,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
