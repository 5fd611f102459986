import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

// The long units of the production code: every top-level class, function and function
// factory (`export const x = (…) =>` or `= function`) of src/, plc/ and db/ (tests left
// out) longer than the threshold, in lines from its first line to its closing brace.
// A unit that long is several concerns in one; the list says where to split next.
//
//   node scripts/unit-lengths.ts [--max 250] [--all]
//
// Exits 1 when any unit is over the threshold. A heuristic, not a parser: a unit starts
// at a declaration in column 0 and ends where its brackets close again and the next line
// is not indented under it, with strings, template literals, comments and regular
// expressions skipped.

const ROOT = path.resolve(import.meta.dirname, '..');
const DIRS = ['src', 'plc', 'db'];

/** The declarations a unit starts with: its kind and name. */
const STARTS: { kind: string; pattern: RegExp }[] = [
  { kind: 'class', pattern: /^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([\w$]+)/ },
  { kind: 'function', pattern: /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)/ },
  { kind: 'factory', pattern: /^(?:export\s+)?(?:const|let)\s+([\w$]+)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\(|<[^>]*>\s*\(|[\w$]+\s*=>)/ },
];

interface Unit {
  file: string;
  kind: string;
  name: string;
  /** 1-based first line. */
  line: number;
  lines: number;
}

/** Where a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\breturn|\btypeof|\bcase)\s*$/;

/**
 * A scanner over a file's text that keeps the bracket depth across lines, skipping what
 * is inside strings, template literals (their `${…}` are code again), comments and
 * regular expressions.
 */
class Scanner {
  depth = 0;
  /** Open template literals: the depth at which each one's `${` was entered. */
  private readonly templates: number[] = [];
  private inTemplate = false;
  private inBlockComment = false;

  /** Scans one line; returns its code with strings and comments blanked out (to tell a regular expression from a division). */
  line(text: string): string {
    let code = '';
    let i = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (this.inBlockComment) {
        const end = text.indexOf('*/', i);
        if (end < 0) return code;
        this.inBlockComment = false;
        i = end + 2;
        continue;
      }
      if (this.inTemplate) {
        if (c === '\\') i += 2;
        else if (c === '`') {
          this.inTemplate = false;
          code += '`';
          i++;
        } else if (c === '$' && text[i + 1] === '{') {
          this.templates.push(this.depth);
          this.inTemplate = false;
          this.depth++;
          i += 2;
        } else i++;
        continue;
      }
      if (c === '/' && text[i + 1] === '/') return code;
      if (c === '/' && text[i + 1] === '*') {
        this.inBlockComment = true;
        i += 2;
        continue;
      }
      if (c === "'" || c === '"') {
        i = skipQuoted(text, i, c);
        code += c + c;
        continue;
      }
      if (c === '/' && BEFORE_REGEX.test(code)) {
        i = skipRegex(text, i);
        code += '/x/';
        continue;
      }
      if (c === '`') {
        this.inTemplate = true;
        i++;
        continue;
      }
      if (c === '{' || c === '(' || c === '[') this.depth++;
      else if (c === '}' || c === ')' || c === ']') {
        this.depth--;
        if (c === '}' && this.templates.length > 0 && this.templates[this.templates.length - 1] === this.depth) {
          this.templates.pop();
          this.inTemplate = true;
        }
      }
      code += c;
      i++;
    }
    return code;
  }

  /** Inside a string, template or comment that goes on to the next line. */
  get open(): boolean {
    return this.inTemplate || this.inBlockComment;
  }
}

function skipQuoted(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length && text[i] !== quote) i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function skipRegex(text: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
      i++;
    }
  }
  i++;
  while (i < text.length && /[a-z]/.test(text[i]!)) i++;
  return i;
}

/** The top-level units of one file. */
export function unitsOf(file: string, text: string): Unit[] {
  const lines = text.split('\n');
  const units: Unit[] = [];
  const scanner = new Scanner();
  let current: { kind: string; name: string; line: number } | undefined;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    const atTop = scanner.depth === 0 && !scanner.open;
    if (atTop && !current) {
      for (const { kind, pattern } of STARTS) {
        const match = pattern.exec(line);
        if (match) {
          current = { kind, name: match[1]!, line: n + 1 };
          break;
        }
      }
    }
    scanner.line(line);
    // Closed, and the next line does not go on with it (prettier indents what goes on: `? …`, `.map(…)`, an arrow's body).
    const goesOn = /^\s+\S/.test(lines[n + 1] ?? '');
    if (current && scanner.depth <= 0 && !scanner.open && !goesOn) {
      units.push({ file, ...current, lines: n + 1 - current.line + 1 });
      current = undefined;
      scanner.depth = 0;
    }
  }
  return units;
}

/**
 * The sources below src, plc and db as they are in the work tree (new files of a split in
 * progress included), tests and declarations left out. Read from the folders, not from
 * git: a copy of the tree without its repository is measured alike.
 */
export function productionFiles(): string[] {
  return DIRS.flatMap((dir) =>
    readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
      .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name))),
  ).sort();
}

function main(): void {
  const { values } = parseArgs({ options: { max: { type: 'string', default: '250' }, all: { type: 'boolean', default: false } } });
  const max = Number(values.max);
  if (!Number.isInteger(max) || max < 1) throw new Error(`--max ${values.max}: a whole number of lines`);
  const files = productionFiles();
  const units = files.flatMap((file) => unitsOf(file, readFileSync(path.join(ROOT, file), 'utf8')));
  const long = units.filter((u) => values.all || u.lines > max).sort((a, b) => b.lines - a.lines);
  for (const u of long) console.log(`${String(u.lines).padStart(5)}  ${u.kind.padEnd(8)} ${u.name}  ${u.file}:${u.line}`);
  const over = units.filter((u) => u.lines > max).length;
  console.log(`${over} of ${units.length} units in ${files.length} files over ${max} lines`);
  if (over > 0) process.exitCode = 1;
}

if (import.meta.filename === process.argv[1]) main();
