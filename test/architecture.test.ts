import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../scripts/build.ts';

// The layering of the code base, read from the sources' imports.
//
// A module's rules refuse in the terms of src/core: its services and stores, and
// whatever of the module they import, throw core's errors (DomainError,
// AuthenticationError, TooManyAttempts) and leave status codes, error bodies and headers
// to the HTTP edge (src/http/errors.ts and the server), which maps them once. The same
// rule then refuses alike whether REST, a PLC telegram or a hub command started it.

const MODULES = path.join(ROOT, 'src/modules');
const HTTP_ERRORS = path.join(ROOT, 'src/http/errors.ts');

/** Every file below `dir` whose name passes `wanted`. */
function filesBelow(dir: string, wanted: (name: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && wanted(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The files a source imports something of that runs (type-only imports left out), resolved. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const [, clause, specifier] of text.matchAll(/^(?:import|export)\s+([^;]*?)\s+from\s+'([^']+)'/gm)) {
    if (/^type\s/.test(clause!)) continue;
    const names = /^\{([^}]*)\}$/.exec(clause!.trim())?.[1];
    if (names !== undefined && names.split(',').every((n) => n.trim() === '' || /^type\s/.test(n.trim()))) continue;
    found.push(specifier!);
  }
  for (const [, specifier] of text.matchAll(/import\(\s*'([^']+)'\s*\)/g)) found.push(specifier!);
  return found.filter((s) => s.startsWith('.')).map((s) => path.resolve(path.dirname(file), s));
}

describe('the layering', () => {
  it('module services and stores, and what they import of their module, throw no error of the HTTP edge', () => {
    const starts = filesBelow(MODULES, (name) => name === 'service.ts' || name === 'store.ts');
    expect(starts.length).toBeGreaterThan(10);
    const seen = new Set<string>();
    const breaks: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const target of runtimeImports(file)) {
        if (target === HTTP_ERRORS) breaks.push(`${path.relative(ROOT, file)} → ${path.relative(ROOT, target)}`);
        else if (target.startsWith(MODULES + path.sep) && existsSync(target)) visit(target);
      }
    };
    for (const file of starts) visit(file);
    expect(seen.has(path.join(MODULES, 'users/authentication.ts')), 'the walk reaches what services import').toBe(true);
    expect(breaks).toEqual([]);
  });
});
