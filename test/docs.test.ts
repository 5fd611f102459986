import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../scripts/build.ts';

// The documents name files, link to each other and to headings; a file renamed or a
// heading reworded must not leave a reader at a dead end. Every relative link must
// reach a file (and its heading, when it names one), every repository path written in
// backticks (`src/…`, `test/…`, `scripts/…`, `plc/…`, `db/…`, `docs/…`) must exist, and
// no document sends the reader to itself by name.

const DOCUMENTS = [
  'README.md',
  'BENCHMARKS.md',
  'RELIABILITY.md',
  'plc/simulator/README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const read = (doc: string) => readFileSync(path.join(ROOT, doc), 'utf8');
/** The text outside fenced code blocks (commands and samples there are not references). */
const prose = (doc: string) => read(doc).replace(/^ *```[\s\S]*?^ *```/gm, '');

/** Heading anchors as GitHub makes them: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchors(doc: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(doc).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return found;
}

/** Relative links `[text](target)`: not to another site, not only an anchor of the same page. */
function links(doc: string): { target: string; file: string; anchor?: string }[] {
  return [...prose(doc).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => {
      const [file, anchor] = target.split('#');
      return { target, file: file ? path.join(path.dirname(doc), file) : doc, ...(anchor ? { anchor } : {}) };
    });
}

/** Paths of the repository in backticks; `<placeholder>` and `…` stand for many and are left out. */
function repositoryPaths(doc: string): string[] {
  return [...prose(doc).matchAll(/`((?:src|test|scripts|plc|db|docs)\/[^`\s]*)`/g)].map((m) => m[1]!).filter((p) => !/[<>{}*…]/.test(p));
}

describe('the documents', () => {
  it('are found (the list this test reads)', () => {
    expect(DOCUMENTS).toContain('docs/install.md');
    for (const doc of DOCUMENTS) expect(existsSync(path.join(ROOT, doc)), doc).toBe(true);
  });

  it.each(DOCUMENTS)('%s: every relative link reaches a file, and the heading it names', (doc) => {
    const dead = links(doc).filter(({ file, anchor }) => {
      if (!existsSync(path.join(ROOT, file))) return true;
      return anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor);
    });
    expect(dead.map((l) => l.target)).toEqual([]);
  });

  it.each(DOCUMENTS)('%s: every repository path it names in backticks exists', (doc) => {
    expect(repositoryPaths(doc).filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
  });

  it.each(DOCUMENTS)('%s: does not refer to itself by name', (doc) => {
    const name = path.basename(doc);
    const stem = name.replace(/\.md$/, '');
    // Its own file name as a name of its own (not the tail of another path such as plc/simulator/README.md),
    // and for the capitalised top-level documents the bare word too ("see README").
    const self = new RegExp(`(?<![\\w/.-])${name.replace('.', '\\.')}\\b${stem === stem.toUpperCase() ? `|\\b${stem}\\b` : ''}`);
    const own = doc.split('/').length > 1 ? doc : undefined;
    const text = prose(doc);
    expect(self.exec(text)?.[0]).toBeUndefined();
    if (own) expect(text.includes(own), `names ${own}`).toBe(false);
  });
});
