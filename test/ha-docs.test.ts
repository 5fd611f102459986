// The files docs/ha ships for setting a pair up (the three nats-server nodes, keepalived)
// are the ones docs/ha.md shows, and each is one the program it is for accepts. That
// they work together is test/ha-netns.test.ts's part: it runs them in a hall of network
// namespaces.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { haDocs } from './support/netns.ts';

const guide = readFileSync(path.join(import.meta.dirname, '..', 'docs', 'ha.md'), 'utf8');

/** The fenced block (indented as in a list item) that follows `after` in docs/ha.md, without its indent. */
function blockAfter(after: string, lang: string): string {
  const from = guide.indexOf(after);
  expect(from, after).toBeGreaterThan(-1);
  const fence = guide.indexOf(`\`\`\`${lang}\n`, from);
  const indent = guide.slice(guide.lastIndexOf('\n', fence) + 1, fence);
  const start = fence + lang.length + 4;
  const end = guide.indexOf(`${indent}\`\`\`\n`, start);
  return guide
    .slice(start, end)
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n');
}

describe("the pair's files in docs/ha", () => {
  it('docs/ha.md shows them as they are and links only to files that exist', () => {
    expect(blockAfter('2. **The NATS nodes.**', 'conf')).toBe(haDocs('node-a.conf'));
    expect(blockAfter('5. **The floating address.**', 'conf')).toBe(haDocs('keepalived.conf'));
    // Box B's node and the witness's are box A's but for the name, the addresses and the comments.
    const settings = (text: string) =>
      text
        .replace(/#.*$/gm, '')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .join('\n');
    const asA = (text: string, name: string, own: string, others: [string, string]) =>
      settings(text)
        .replace(`server_name: "${name}"`, 'server_name: "node-a"')
        .replace(`listen: "10.0.0.${own}:6222"`, 'listen: "10.0.0.11:6222"')
        .replace(
          `"nats-route://10.0.0.${others[0]}:6222", "nats-route://10.0.0.${others[1]}:6222"`,
          '"nats-route://10.0.0.12:6222", "nats-route://10.0.0.13:6222"',
        );
    expect(asA(haDocs('node-b.conf'), 'node-b', '12', ['11', '13'])).toBe(settings(haDocs('node-a.conf')));
    expect(asA(haDocs('witness.conf'), 'witness', '13', ['11', '12'])).toBe(settings(haDocs('node-a.conf')));
    const links = [...guide.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) expect(existsSync(path.join(import.meta.dirname, '..', 'docs', link)), link).toBe(true);
  });

  it('nats-server and keepalived accept them', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wms-ha-docs-'));
    try {
      for (const file of ['node-a.conf', 'node-b.conf', 'witness.conf']) {
        const config = path.join(dir, file);
        writeFileSync(config, haDocs(file).replace('"/var/lib/nats"', JSON.stringify(path.join(dir, 'store'))));
        const checked = spawnSync('nats-server', ['-t', '-c', config], { encoding: 'utf8' });
        expect(checked.status, `${file}: ${checked.stdout}${checked.stderr}`).toBe(0);
      }
      const keepalived = path.join(dir, 'keepalived.conf');
      writeFileSync(keepalived, haDocs('keepalived.conf'));
      // keepalived's check of a file (-t) exits 5 for a file it refuses, and ends by a signal for one it takes.
      const checked = spawnSync('keepalived', ['-t', '-l', '-f', keepalived], { encoding: 'utf8' });
      const said = `${checked.stdout}${checked.stderr}`;
      expect(checked.status, said).toBeNull();
      expect(said).not.toMatch(/unknown keyword|error|invalid|not found|warning/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
