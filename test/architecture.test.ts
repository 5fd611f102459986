import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../scripts/build.ts';
import { productionFiles, unitsOf } from '../scripts/unit-lengths.ts';

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
    if (!typesOnly(clause!)) found.push(specifier!);
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

// The layers DESIGN.md draws, checked on every import between the sources (types
// included: a type import couples as much as any). Tests are left out: they may reach
// anything they test.

/** One import between the sources: `from → to`, both relative to the repository, and whether it imports types only. */
type Edge = [from: string, to: string, typeOnly: boolean];

/** True when an import clause (`{ a, type B }`, `type { C }`, `* as D`) brings in types only. */
function typesOnly(clause: string): boolean {
  if (/^type\s/.test(clause)) return true;
  const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1];
  return names !== undefined && names.split(',').every((n) => n.trim() === '' || /^type\s/.test(n.trim()));
}

/** Every relative import of the sources below src, plc and db (the files scripts/unit-lengths.ts measures). */
function importEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const source of productionFiles()) {
    const file = path.join(ROOT, source);
    const text = readFileSync(file, 'utf8');
    const imports: [string, boolean][] = [
      ...[...text.matchAll(/^\s*(?:import|export)\s([^;]*?)\sfrom\s+'(\.[^']+)'/gm)].map((m): [string, boolean] => [m[2]!, typesOnly(m[1]!)]),
      ...[...text.matchAll(/^\s*import\s+'(\.[^']+)'/gm)].map((m): [string, boolean] => [m[1]!, false]),
      ...[...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)].map((m): [string, boolean] => [m[1]!, false]),
    ];
    for (const [specifier, typeOnly] of imports) edges.push([source, path.relative(ROOT, path.resolve(path.dirname(file), specifier)), typeOnly]);
  }
  return edges;
}

const under = (file: string, ...dirs: string[]) => dirs.some((dir) => file.startsWith(`${dir}/`) || file === dir);
const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1];

/** The rules, each a name and the imports it forbids. */
const RULES: { rule: string; breaks: (from: string, to: string, typeOnly: boolean) => boolean }[] = [
  { rule: 'src/core imports nothing above it', breaks: (from, to) => under(from, 'src/core') && !under(to, 'src/core') },
  {
    rule: 'a module reaches another only through its services (service.ts) or its definition (index.ts)',
    breaks: (from, to) => {
      const a = moduleOf(from);
      const b = moduleOf(to);
      return a !== undefined && b !== undefined && a !== b && !/\/(service|index)\.ts$/.test(to);
    },
  },
  {
    rule: 'src/http knows routes, not the modules, the PLC or the hub link',
    breaks: (from, to) => under(from, 'src/http') && under(to, 'src/modules', 'plc', 'src/federation'),
  },
  { rule: 'the PLC seam (plc/port.ts) depends on src/core only', breaks: (from, to) => from === 'plc/port.ts' && !under(to, 'src/core') },
  {
    rule: 'OSIP and the signal channels speak to the seam, not to the adapter, the modules or the hub link',
    breaks: (from, to) => under(from, 'plc/osip', 'plc/signals') && (under(to, 'src/modules', 'src/federation', 'plc/adapter') || to === 'plc/adapter.ts'),
  },
  {
    rule: "the HMI in the browser imports its own files, the wire contract's types and its rules (src/contract/rules.ts)",
    breaks: (from, to, typeOnly) =>
      under(from, 'src/hmi/app') && !under(to, 'src/hmi/app') && !(under(to, 'src/contract') && (typeOnly || to === 'src/contract/rules.ts')),
  },
];

const broken = (edges: readonly Edge[]) =>
  RULES.flatMap(({ rule, breaks }) => edges.filter(([from, to, typeOnly]) => breaks(from, to, typeOnly)).map(([from, to]) => `${rule}: ${from} → ${to}`));

describe('the layers', () => {
  it('every import of the sources keeps to the rules of DESIGN.md', () => {
    const edges = importEdges();
    expect(edges.length, 'the imports are read').toBeGreaterThan(500);
    expect(broken(edges)).toEqual([]);
  });

  it('each rule catches an import in the wrong direction', () => {
    const wrong: Edge[] = [
      ['src/core/unit-of-work.ts', 'src/modules/routing/service.ts', false],
      ['src/modules/movements/service.ts', 'src/modules/common/locations/store.ts', false],
      ['src/http/server.ts', 'plc/channels.ts', false],
      ['plc/port.ts', 'src/modules/routing/decision.ts', true],
      ['plc/osip/warehouse/handler.ts', 'plc/adapter.ts', false],
      ['src/hmi/app/api.ts', 'src/contract/replies.ts', false],
    ];
    expect(broken(wrong)).toHaveLength(RULES.length);
    // The HMI may take the contract's types, and its rules at run time.
    expect(
      broken([
        ['src/hmi/app/api.ts', 'src/contract/replies.ts', true],
        ['src/hmi/app/screens/units/create-unit.tsx', 'src/contract/rules.ts', false],
      ]),
    ).toEqual([]);
    for (const { rule } of RULES)
      expect(
        broken(wrong).some((b) => b.startsWith(`${rule}:`)),
        rule,
      ).toBe(true);
  });
});

// No god-units: a class or function the next engineer must hold in their head at once
// stays under about 250 lines (`node scripts/unit-lengths.ts` lists the longest).
describe('the size of units', () => {
  it('no production function, factory or class is over 250 lines', () => {
    const files = productionFiles();
    expect(files.length, 'the sources are read').toBeGreaterThan(300);
    const units = files.flatMap((file) => unitsOf(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(units.length).toBeGreaterThan(1000);
    expect(units.filter((u) => u.lines > 250).map((u) => `${u.name} (${u.file}:${u.line}): ${u.lines} lines`)).toEqual([]);
  });

  it('the count sees a unit that is too long', () => {
    const body = Array.from({ length: 260 }, (_, i) => `  const line${i} = ${i};`).join('\n');
    expect(unitsOf('long.ts', `export function tooLong() {\n${body}\n}\n`).map((u) => [u.name, u.lines > 250])).toEqual([['tooLong', true]]);
  });
});
