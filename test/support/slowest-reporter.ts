import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

// After every run: the 20 slowest files (wall time with their hooks: a file's servers and
// browsers start in beforeAll) and the 20 slowest tests, written to
// test-artifacts/test-times.txt, so the suite's time stays visible and where it goes is
// known before anyone makes it faster.

const SHOWN = 20;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;

export default class SlowestReporter implements Reporter {
  private started = 0;
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunStart(): void {
    this.started = Date.now();
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const files: [number, string][] = [];
    const tests: [number, string][] = [];
    for (const module of modules) {
      const file = path.relative(this.root, module.moduleId);
      const d = module.diagnostic();
      files.push([d.collectDuration + d.setupDuration + d.prepareDuration + d.environmentSetupDuration + d.duration, file]);
      for (const test of module.children.allTests()) tests.push([test.diagnostic()?.duration ?? 0, `${file} › ${test.fullName}`]);
    }
    const top = (rows: [number, string][]) =>
      rows
        .sort((a, b) => b[0] - a[0])
        .slice(0, SHOWN)
        .map(([ms, name]) => `${seconds(ms)}  ${name}`);
    const text = [
      `whole run: ${seconds(Date.now() - this.started)} (${modules.length} files, ${tests.length} tests)`,
      '',
      `the ${SHOWN} slowest files (collect, setup, hooks and tests):`,
      ...top(files),
      '',
      `the ${SHOWN} slowest tests:`,
      ...top(tests),
      '',
    ].join('\n');
    const out = path.join(this.root, 'test-artifacts', 'test-times.txt');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, text);
    console.log(`the slowest files and tests: ${path.relative(process.cwd(), out)}`);
  }
}
