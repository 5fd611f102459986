import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// `npm test`'s pretest step (scripts/test-needs.ts): on a machine that has every
// Debian package the suite needs it says nothing; on one that lacks them and cannot
// install them (no apt-get here) it stops with one line naming the packages and the
// command that installs them.

const script = path.resolve('scripts/test-needs.ts');
const bare = mkdtempSync(path.join(tmpdir(), 'wms-test-needs-'));
afterAll(() => rmSync(bare, { recursive: true, force: true }));

const run = (PATH: string) => spawnSync(process.execPath, [script], { env: { PATH }, encoding: 'utf8' });

describe('the test prerequisites', () => {
  it('are quiet where everything is installed (this machine, after the pretest step)', () => {
    const result = run(process.env.PATH ?? '');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toBe('');
  });

  it('stop with one line naming the missing packages and the command, where nothing can be installed', () => {
    // A PATH with a shell and nothing else: every command is missing, apt-get too.
    symlinkSync('/bin/sh', path.join(bare, 'sh'));
    const result = run(bare);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    for (const name of ['socat', 'chromium-headless-shell', 'nats-server', 'systemd', 'prometheus', 'qemu-user']) expect(lines[0]).toContain(name);
    expect(lines[0]).toMatch(/install them with: sudo apt-get install -y --no-install-recommends .*socat/);
  });
});
