import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../scripts/build.ts';
import { productionFiles } from '../scripts/unit-lengths.ts';
import { CORE_KEYS } from '../src/core/errors.ts';
import { eventTypes } from '../src/core/event-catalogue.ts';
import { ALARM_KEYS } from '../src/modules/alarms/errors.ts';
import { COMMON_KEYS } from '../src/modules/common/errors.ts';
import { HA_KEYS } from '../src/modules/ha/errors.ts';
import { INVENTORY_KEYS } from '../src/modules/inventory/errors.ts';
import { MOVEMENT_KEYS } from '../src/modules/movements/errors.ts';
import { PREFERENCE_KEYS } from '../src/modules/preferences/errors.ts';
import { RECEIVING_KEYS } from '../src/modules/receiving/errors.ts';
import { SHIPPING_KEYS } from '../src/modules/shipping/errors.ts';
import { TASK_KEYS } from '../src/modules/tasks/errors.ts';
import { TRANSPORT_ORDER_KEYS } from '../src/modules/transport-orders/errors.ts';
import { USER_KEYS } from '../src/modules/users/errors.ts';

// The message keys of the API-declined bodies are what clients, the HMI and their
// translations hold on to. Each is written once, in a catalogue: src/core/errors.ts for
// the keys every module shares, `src/modules/<module>/errors.ts` for a module's own.
// Checked here: every key of a catalogue is documented in its module's page, every
// catalogue is joined into the contract's MessageKey (src/contract/messages.ts), and no
// source writes a key out where it throws, or anywhere outside a catalogue. The sources
// are read as text, as test/architecture.test.ts reads their imports.

/** Each catalogue, the name it exports and the page that documents its keys. */
const CATALOGUES = [
  { file: 'src/core/errors.ts', name: 'CORE_KEYS', keys: CORE_KEYS, doc: 'docs/message-keys.md' },
  { file: 'src/modules/alarms/errors.ts', name: 'ALARM_KEYS', keys: ALARM_KEYS, doc: 'docs/events.md' },
  { file: 'src/modules/common/errors.ts', name: 'COMMON_KEYS', keys: COMMON_KEYS, doc: 'docs/common-module.md' },
  { file: 'src/modules/ha/errors.ts', name: 'HA_KEYS', keys: HA_KEYS, doc: 'docs/ha.md' },
  { file: 'src/modules/inventory/errors.ts', name: 'INVENTORY_KEYS', keys: INVENTORY_KEYS, doc: 'docs/inventory.md' },
  { file: 'src/modules/movements/errors.ts', name: 'MOVEMENT_KEYS', keys: MOVEMENT_KEYS, doc: 'docs/movements.md' },
  { file: 'src/modules/preferences/errors.ts', name: 'PREFERENCE_KEYS', keys: PREFERENCE_KEYS, doc: 'docs/preferences.md' },
  { file: 'src/modules/receiving/errors.ts', name: 'RECEIVING_KEYS', keys: RECEIVING_KEYS, doc: 'docs/receiving.md' },
  { file: 'src/modules/shipping/errors.ts', name: 'SHIPPING_KEYS', keys: SHIPPING_KEYS, doc: 'docs/shipping.md' },
  { file: 'src/modules/tasks/errors.ts', name: 'TASK_KEYS', keys: TASK_KEYS, doc: 'docs/tasks.md' },
  { file: 'src/modules/transport-orders/errors.ts', name: 'TRANSPORT_ORDER_KEYS', keys: TRANSPORT_ORDER_KEYS, doc: 'docs/transport-orders.md' },
  { file: 'src/modules/users/errors.ts', name: 'USER_KEYS', keys: USER_KEYS, doc: 'docs/users.md' },
];

const ALL_KEYS = new Set(CATALOGUES.flatMap((c) => Object.values(c.keys) as string[]));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The sources below src, plc and db, relative to the repository; tests left out. */
const SOURCES = productionFiles();

/** Comments, and string and template literals, in the order they stand: the first that starts wins. */
const TOKENS = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;

/** The text with its comments blanked (lines kept), so that a key a comment names is not read as code. */
const withoutComments = (text: string) => text.replace(TOKENS, (token) => (token.startsWith('/') ? token.replace(/[^\n]/g, ' ') : token));

/** A lookup from an offset of the text to its line, 1-based. */
function lines(text: string): (index: number) => number {
  const starts = [...text.matchAll(/\n/g)].map((m) => m.index + 1);
  return (index) => {
    let [low, high] = [0, starts.length];
    while (low < high) {
      const mid = (low + high) >> 1;
      if (starts[mid]! <= index) low = mid + 1;
      else high = mid;
    }
    return low + 1;
  };
}

/** The nearest character before `index` that is not white space. */
function charBefore(text: string, index: number): string | undefined {
  let i = index - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i];
}

/** The string literals of a source, with their lines; a property name (`{ 'key': … }`) says so. */
function literals(text: string): { value: string; line: number; propertyName: boolean }[] {
  const lineAt = lines(text);
  const found: { value: string; line: number; propertyName: boolean }[] = [];
  for (const m of text.matchAll(TOKENS)) {
    if (m[0].startsWith('/')) continue;
    const end = m.index + m[0].length;
    const propertyName = ['{', ','].includes(charBefore(text, m.index) ?? '') && /^\s*:/.test(text.slice(end, end + 80));
    found.push({ value: m[0].slice(1, -1), line: lineAt(m.index), propertyName });
  }
  return found;
}

/** Where a key is thrown as a literal: the key argument of `new DomainError(status, key, …)` or `inUse(key, …)` is quoted. */
function literalThrows(text: string): number[] {
  const code = withoutComments(text);
  const lineAt = lines(code);
  return [...code.matchAll(/new DomainError\(\s*[^,]*,\s*['"`]|\binUse\(\s*['"`]/g)].map((m) => lineAt(m.index));
}

/**
 * The literals of a source that are message keys written out: a key of a catalogue, or
 * a dotted word of a key's family (`svc.…`, `user.…`) that no catalogue has. A property
 * name is a table keyed by message key (the upper-case family of src/http/errors.ts,
 * which `satisfies` the contract's MessageKey); an event type shares its words with a
 * key at times (`alarm.cleared`) and is no key.
 */
function keysWrittenOut(text: string): string[] {
  const families = new Set([...ALL_KEYS].map((key) => key.split('.')[0]));
  const events = new Set<string>(eventTypes());
  return literals(text)
    .filter(({ value, propertyName }) => !propertyName && !events.has(value))
    .filter(({ value }) => ALL_KEYS.has(value) || (/^[A-Za-z]+(\.[A-Za-z0-9_]+)+$/.test(value) && families.has(value.split('.')[0]!)))
    .map(({ value, line }) => `${line}: '${value}'`);
}

describe('the message-key catalogues', () => {
  it('are the ones listed here: every errors.ts of a module, every *_KEYS declared', () => {
    const listed = CATALOGUES.map((c) => c.file).sort();
    const declaring = SOURCES.filter((file) => /^export const [A-Z_]+_KEYS = \{/m.test(read(file))).sort();
    expect(declaring).toEqual(listed);
    for (const { file, name } of CATALOGUES) expect(read(file), file).toMatch(new RegExp(`^export const ${name} = \\{`, 'm'));
    const moduleFiles = readdirSync(path.join(ROOT, 'src/modules'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/modules/${entry.name}/errors.ts`)
      .filter((file) => SOURCES.includes(file));
    expect(moduleFiles.sort()).toEqual(listed.filter((file) => file.startsWith('src/modules/')));
  });

  it('hold each key once', () => {
    const keys = CATALOGUES.flatMap((c) => Object.values(c.keys) as string[]);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
    expect(ALL_KEYS.size).toBeGreaterThan(70);
  });

  it.each(CATALOGUES)('$file: every key is documented in $doc', ({ keys, doc }) => {
    const text = read(doc);
    expect((Object.values(keys) as string[]).filter((key) => !text.includes(`\`${key}\``))).toEqual([]);
  });

  it('are joined into the MessageKey of the wire contract (src/contract/messages.ts)', () => {
    const contract = read('src/contract/messages.ts');
    for (const { file, name } of CATALOGUES) {
      const from = path.relative('src/contract', file);
      expect(contract, name).toContain(`import type { ${name} } from '${from.startsWith('.') ? from : `./${from}`}';`);
      expect(contract, name).toContain(`KeyOf<typeof ${name}>`);
    }
  });
});

describe('the sources', () => {
  // The HMI's texts are keyed by message key on purpose: tsc checks them against MessageKey.
  const scanned = SOURCES.filter((file) => !file.startsWith('src/hmi/app/'));

  it('are read (the list this test scans)', () => {
    expect(scanned.length).toBeGreaterThan(300);
    for (const { file } of CATALOGUES) expect(scanned).toContain(file);
  });

  it('throw no key written as a literal, catalogues included: a key thrown is a key of a catalogue', () => {
    const breaks = scanned.flatMap((file) => literalThrows(read(file)).map((line) => `${file}:${line}`));
    expect(breaks).toEqual([]);
  });

  it('write no message key outside the catalogues', () => {
    const catalogues = new Set(CATALOGUES.map((c) => c.file));
    const breaks = scanned.filter((file) => !catalogues.has(file)).flatMap((file) => keysWrittenOut(read(file)).map((hit) => `${file}:${hit}`));
    expect(breaks).toEqual([]);
  });

  it('would be caught: a key thrown as a literal, a key copied out of its catalogue, a new key of a family', () => {
    expect(literalThrows("throw new DomainError(\n  409,\n  'svc.wms.x.y', 'm');")).toEqual([1]);
    expect(literalThrows('throw inUse(`svc.common.${what}.inUse`, m, []);')).toEqual([1]);
    expect(literalThrows("throw inUse(COMMON_KEYS.tuInUse, m, []); // not inUse('svc.x')")).toEqual([]);
    expect(keysWrittenOut("const KEY = 'svc.common.tasks.isPaused';")).toEqual(["1: 'svc.common.tasks.isPaused'"]);
    expect(keysWrittenOut("refuse('user.name.taken', why);")).toEqual(["1: 'user.name.taken'"]);
    expect(keysWrittenOut("emit('alarm.cleared', alarm); const T = { 'not.found': 'NOT_FOUND' };")).toEqual([]);
  });
});
