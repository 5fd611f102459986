// Hostile requests, generated for each operation of the route table: credentials that
// are missing or forged, path parameters that climb out (`..%2F`), query values and
// parameters no client should send, bodies that are malformed, of the wrong type,
// huge, deeply nested or not UTF-8, odd methods and headers, and raw bytes that are
// not HTTP at all. Each operation gets a pool of case makers; the runner draws from
// the pools in turn, so a short run touches every operation and a long one goes deep.

import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { FuzzCase } from './fuzz-checks.ts';
import { CATALOGUE, fieldsOf, NOBODY, pathValue, queryValue, withField, type CatalogueEntry, type Site } from './fuzz-site.ts';
import type { Random } from './random.ts';
import type { Operation } from './routes.ts';

export interface CaseContext {
  token: string;
  site: Site;
  random: Random;
  /** `127.0.0.1:port` of the appliance. */
  host: string;
  /** Top-level fields of each JSON operation (`op.name` →), from the catalogue or learnt from its validation error. */
  fields: Map<string, string[]>;
  /** A fresh number: unique names, request ids. */
  next(): number;
}

export interface CaseMaker {
  label: string;
  make: (ctx: CaseContext) => FuzzCase;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const JSON_TYPE = 'application/json';
const BODY_LIMIT = 1_048_576;

type Headers = [string, string][];

/** A path parameter value as sent (already encoded) that tries to climb out, break decoding or confuse a lookup. */
const HOSTILE_PATH_VALUES = [
  '..',
  '.',
  '%2e%2e',
  '..%2F..%2Fwms.sqlite',
  '..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd',
  '..%5C..%5Cwms.sqlite',
  '%2F',
  '%00',
  'fz%00.sqlite',
  '%ZZ',
  '%C0%AE%C0%AE',
  '%FF',
  'x'.repeat(4000),
  '%E2%80%AE',
  '%EF%BF%BD',
  "'%20OR%20'1'%3D'1",
  '%20',
  '-1',
  '99999999999999999999999',
  '%F0%9F%93%A6',
  'wms.sqlite',
  'index',
  '%7B%7D',
  '%0D%0AX-Injected%3A%201',
];

/** Query values (encoded) that no client should send. */
const HOSTILE_QUERY_VALUES = [
  '',
  '%00',
  '%ZZ',
  '%FF',
  '%C0%AF',
  '%E2%80%AE',
  '%EF%BF%BD',
  'x'.repeat(5000),
  '..%2F..%2Fetc%2Fpasswd',
  '*',
  '%25',
  '%5B%5D',
  '-1',
  '1e309',
  '99999999999999999999',
  "'%3B%20DROP%20TABLE%20events%3B--",
  'null',
  '%0D%0AX-Injected%3A%201',
  '%D800',
  '%ED%A0%80',
];

/** Extra query parameters appended to a well-formed request. */
const HOSTILE_EXTRA_QUERY = [
  'limit=-1',
  'limit=abc',
  'limit=99999999999',
  'limit=0',
  'after=%21%21',
  'after=eyJlIjotMX0',
  'after=eyJlIjoxZTMwOH0',
  'from=yesterday',
  'to=9999-99-99T99%3A99%3A99Z',
  'types=**',
  'sort=sideways',
  'zz=1',
  `${'a'.repeat(3000)}=1`,
  '&&&',
  '=',
  '%3D%3D',
  'ticket=%00',
  'lastEventId=-1',
  'state=%00',
  'strict=maybe',
  'op=change-state&op=delete',
];

const MALFORMED_JSON = [
  '{',
  '{"a":',
  '{"a":1,}',
  '[1,2',
  'nul',
  'NaN',
  "{'a':1}",
  '{"a":1} x',
  '\uFEFF{}',
  '{"a":"\\x"}',
  '{"a":"\\u12"}',
  '"\u0000"',
  '{"a":01}',
  '1 2',
  ' ',
  '{"a":1}{"b":2}',
  '{"a":Infinity}',
  '{"a":-}',
  '{"a":1e}',
  '{"":}',
  '[,]',
  '{"a"}',
  '\u0000',
];

const TOP_LEVEL_JSON = ['null', '0', '"text"', 'true', '[]', '{}', '[{}]', '[null]', '-0', '1e999', '[[[]]]', '{"":""}'];

/** Values of the wrong type (or an edge of the right one) for any field. */
const WRONG_VALUES: readonly unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  9007199254740993,
  '',
  ' ',
  'x'.repeat(70_000),
  true,
  false,
  [],
  {},
  [[[]]],
  { $gt: '' },
  '\u0000',
  '\uD800',
  '\u202E',
  '0000-00-00T00:00:00Z',
  '__proto__',
  ['a', 1, null],
  { a: { b: { c: {} } } },
  '1',
  '-0',
  'NaN',
];

/** Strings that must not become part of a name: NUL, bidi controls, lone surrogates. */
const HOSTILE_NAME_CHARS = [
  { label: 'NUL', char: '\u0000' },
  { label: 'bidi override U+202E', char: '\u202E' },
  { label: 'bidi isolate U+2066', char: '\u2066' },
  { label: 'lone high surrogate', char: '\uD800' },
  { label: 'lone low surrogate', char: '\uDC00' },
];

/** Byte sequences that are not UTF-8. */
const BAD_UTF8 = [
  { label: 'byte FF', bytes: [0xff] },
  { label: 'overlong "/" (C0 AF)', bytes: [0xc0, 0xaf] },
  { label: 'a surrogate encoded (ED A0 80)', bytes: [0xed, 0xa0, 0x80] },
  { label: 'a lone continuation byte (80)', bytes: [0x80] },
  { label: 'a truncated sequence (E2 82)', bytes: [0xe2, 0x82] },
];

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=fz',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json, text/plain',
  'application/jsonx',
  'application/*',
  '',
  ';;;',
  'application/json; boundary="',
  'x'.repeat(2000),
  'image/png',
  'application/octet-stream',
];

const ACCEPTS = [
  'application/xml',
  'text/html',
  '*/*;q=0',
  ';;;',
  'application/json;q=abc',
  'a'.repeat(4000),
  'application/vnd.vendor.unknown-v9+json',
  '*/*, application/xml;q=0.1',
  'text/event-stream',
  'image/png',
  'application/json;q=0, */*;q=0',
];

const HOSTILE_REQUEST_IDS = ['../../etc/passwd', 'x'.repeat(200), 'a b', 'fz\u00e9', '<script>', '%00'];
const HOSTILE_HOSTS = ['evil.example', '', 'a b', 'x'.repeat(300), '[::1', '127.0.0.1:999999', '\u00e9vil'];
const ODD_METHODS = http.METHODS.filter((m) => m !== 'CONNECT' && m !== 'OPTIONS');

const b64url = (s: string) => Buffer.from(s).toString('base64url');

function authHeaders(ctx: CaseContext): Headers {
  return [
    ['Authorization', `Bearer ${ctx.token}`],
    ['X-Request-Id', `fz-${ctx.next()}`],
  ];
}

/** The operation's path with the site's values (or `params` given already encoded) and its selecting query. */
export function pathOf(op: Operation, ctx: CaseContext, params: Record<number, string> = {}, extraQuery?: string): string {
  let index = 0;
  const path = op.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith('{')) return segment;
      const i = index++;
      return params[i] ?? encodeURIComponent(pathValue(ctx.site, op, i));
    })
    .join('/');
  const query = op.query.map((q) => (q.includes('=') ? q : `${q}=${encodeURIComponent(queryValue(op, q))}`));
  if (extraQuery !== undefined) query.push(extraQuery);
  return query.length ? `${path}?${query.join('&')}` : path;
}

const catalogueOf = (op: Operation): CatalogueEntry | undefined => CATALOGUE.find((e) => e.op === op.name);
const takesJson = (op: Operation) => op.body.includes('json');

/** A well-formed body for the operation: its catalogue body, else an empty object. */
function baseBody(op: Operation, ctx: CaseContext): unknown {
  return catalogueOf(op)?.build(ctx.next()) ?? {};
}

function httpCase(
  op: Operation,
  label: string,
  method: string,
  path: string,
  headers: Headers,
  body?: Buffer | string,
  extra: Partial<FuzzCase> = {},
): FuzzCase {
  return { op: op.name, label, request: { method, path, headers, ...(body === undefined ? {} : { body }) }, unsafe: !SAFE.has(method), ...extra };
}

/** A request of the operation as a client sends it, with one thing changed by `change`. */
function variant(
  op: Operation,
  ctx: CaseContext,
  label: string,
  change: { headers?: (h: Headers) => Headers; path?: string; method?: string; body?: Buffer | string | null } = {},
): FuzzCase {
  let headers = authHeaders(ctx);
  let body: Buffer | string | undefined;
  if (takesJson(op)) {
    body = JSON.stringify(baseBody(op, ctx));
    headers.push(['Content-Type', JSON_TYPE]);
  }
  if (change.body !== undefined) body = change.body ?? undefined;
  if (change.headers) headers = change.headers(headers);
  return httpCase(op, label, change.method ?? op.method, change.path ?? pathOf(op, ctx), headers, body);
}

const without = (name: string) => (h: Headers) => h.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
const replacing = (name: string, value: string) => (h: Headers) => [...without(name)(h), [name, value] as [string, string]];

// ---- credentials

function authMakers(op: Operation): CaseMaker[] {
  if (op.grant === 'public') return [];
  const expect = { status: [401], category: 'auth' as const };
  const forged = (ctx: CaseContext, value: string | undefined): FuzzCase => {
    const c = variant(op, ctx, '', { headers: value === undefined ? without('Authorization') : replacing('Authorization', value) });
    return { ...c, expect };
  };
  const makers: CaseMaker[] = [
    { label: 'no credentials', make: (ctx) => forged(ctx, undefined) },
    { label: 'a bearer token that is no token', make: (ctx) => forged(ctx, 'Bearer fz-garbage') },
    {
      label: 'an unsigned token (alg none) naming admin',
      make: (ctx) =>
        forged(ctx, `Bearer ${b64url('{"alg":"none","typ":"JWT"}')}.${b64url(JSON.stringify({ sub: 'admin', iss: 'wms-appliance', exp: 4102444800 }))}.`),
    },
    {
      label: "admin's token with its signature changed",
      make: (ctx) => {
        const last = ctx.token.at(-2) === 'A' ? 'B' : 'A';
        return forged(ctx, `Bearer ${ctx.token.slice(0, -2)}${last}${ctx.token.at(-1)}`);
      },
    },
    {
      label: "admin's token with its payload changed",
      make: (ctx) => {
        const [h, , s] = ctx.token.split('.');
        return forged(ctx, `Bearer ${h}.${b64url(JSON.stringify({ sub: 'admin', iss: 'wms-appliance', exp: 4102444800, grants: ['*'] }))}.${s}`);
      },
    },
    { label: 'Basic credentials of admin', make: (ctx) => forged(ctx, `Basic ${Buffer.from('admin:reliability-admin-1').toString('base64')}`) },
    { label: 'an API key that was never issued', make: (ctx) => forged(ctx, 'Bearer wms_fzmissing_fzsecret') },
    { label: 'a bearer token of 8 KB', make: (ctx) => forged(ctx, `Bearer ${'A'.repeat(8192)}`) },
    { label: 'Bearer without a token', make: (ctx) => forged(ctx, 'Bearer ') },
    {
      label: 'two Authorization headers, the first garbage',
      make: (ctx) => ({ ...variant(op, ctx, '', { headers: (h) => [['Authorization', 'Bearer fz-garbage'], ...h] }), expect }),
    },
  ];
  if (op.ticket) {
    makers.push({
      label: 'a ticket that was never issued',
      make: (ctx) => ({ ...variant(op, ctx, '', { headers: without('Authorization'), path: pathOf(op, ctx, {}, 'ticket=fz-forged') }), expect }),
    });
  }
  return makers.map((m) => ({ label: `auth: ${m.label}`, make: (ctx) => ({ ...m.make(ctx), label: `auth: ${m.label}` }) }));
}

// ---- path parameters and the query

function pathMakers(op: Operation): CaseMaker[] {
  const count = (op.path.match(/\{/g) ?? []).length;
  const makers: CaseMaker[] = [];
  for (let i = 0; i < count; i++) {
    for (const value of HOSTILE_PATH_VALUES) {
      const label = `path parameter ${i + 1} = ${value.length > 40 ? `${value.slice(0, 10)}…(${value.length})` : value}`;
      makers.push({
        label,
        make: (ctx) => ({ ...variant(op, ctx, label, { path: pathOf(op, ctx, { [i]: value }) }), expect: { noFileContent: true, category: 'leak' } }),
      });
    }
  }
  makers.push({ label: 'a doubled slash', make: (ctx) => variant(op, ctx, 'a doubled slash at the start', { path: pathOf(op, ctx).replace('/', '//') }) });
  makers.push({ label: 'a trailing slash', make: (ctx) => variant(op, ctx, 'a trailing slash', { path: pathOf(op, ctx).replace(/(\?|$)/, '/$1') }) });
  return makers;
}

function queryMakers(op: Operation): CaseMaker[] {
  const makers: CaseMaker[] = [];
  const names = [...op.query.filter((q) => !q.includes('=')), ...op.optionalQuery];
  for (const name of names) {
    for (const value of HOSTILE_QUERY_VALUES) {
      const label = `query ${name}=${value.length > 40 ? `${value.slice(0, 10)}…(${value.length})` : value}`;
      makers.push({
        label,
        make: (ctx) => {
          const base = pathOf(op, ctx);
          const [p, q = ''] = base.split('?') as [string, string?];
          const kept = q.split('&').filter((kv) => kv && !kv.startsWith(`${name}=`));
          return variant(op, ctx, label, { path: `${p}?${[...kept, `${name}=${value}`].join('&')}` });
        },
      });
    }
    makers.push({
      label: `query ${name} twice`,
      make: (ctx) => variant(op, ctx, `query ${name} twice`, { path: pathOf(op, ctx, {}, `${name}=%00&${name}=fz-other`) }),
    });
    makers.push({
      label: `query ${name}[] as an array`,
      make: (ctx) => variant(op, ctx, `query ${name}[]`, { path: pathOf(op, ctx, {}, `${name}%5B%5D=x&${name}%5B0%5D=y`) }),
    });
  }
  for (const extra of HOSTILE_EXTRA_QUERY) {
    const label = `extra query ${extra.length > 40 ? `${extra.slice(0, 10)}…(${extra.length})` : extra}`;
    makers.push({ label, make: (ctx) => variant(op, ctx, label, { path: pathOf(op, ctx, {}, extra) }) });
  }
  return makers;
}

// ---- bodies

function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** A JSON body text with the value at `field` replaced by ready JSON text (deep nesting cannot go through JSON.stringify). */
function spliced(body: unknown, field: string, jsonText: string): string {
  return JSON.stringify(withField(body, field, '\u0001SPLICE\u0001')).replace('"\\u0001SPLICE\\u0001"', jsonText);
}

function fieldsFor(op: Operation, ctx: CaseContext): string[] {
  const catalogued = catalogueOf(op);
  if (catalogued) return fieldsOf(catalogued.build(0));
  return ctx.fields.get(op.name) ?? [];
}

function bodyMakers(op: Operation): CaseMaker[] {
  if (!takesJson(op)) return [];
  const makers: CaseMaker[] = [];
  const json = (label: string, body: (ctx: CaseContext) => Buffer | string, headers?: (h: Headers) => Headers): CaseMaker => ({
    label,
    make: (ctx) => variant(op, ctx, label, { body: body(ctx), ...(headers ? { headers } : {}) }),
  });
  for (const text of MALFORMED_JSON) makers.push(json(`malformed JSON ${JSON.stringify(text)}`, () => text));
  for (const text of TOP_LEVEL_JSON) makers.push(json(`JSON ${text} as the whole body`, () => text));
  // One field of a well-formed body, of the wrong type.
  for (let v = 0; v < WRONG_VALUES.length; v++) {
    const value = WRONG_VALUES[v];
    const shown = JSON.stringify(value)!;
    makers.push({
      label: `a field = ${shown.length > 30 ? `${shown.slice(0, 12)}…` : shown}`,
      make: (ctx) => {
        const fields = fieldsFor(op, ctx);
        const field = fields.length ? ctx.random.pick(fields) : 'fz';
        const base = catalogueOf(op) ? baseBody(op, ctx) : {};
        const label = `field ${field} = ${shown.length > 30 ? `${shown.slice(0, 12)}…(${shown.length})` : shown}`;
        return variant(op, ctx, label, { body: JSON.stringify(withField(base, field, value)) });
      },
    });
  }
  makers.push(json('an array nested 100,000 deep', () => deepArray(100_000)));
  makers.push(json('an object nested 60,000 deep', () => deepObject(60_000)));
  makers.push({
    label: 'a field nested 10,000 deep',
    make: (ctx) => {
      const fields = fieldsFor(op, ctx);
      const field = fields.length ? ctx.random.pick(fields) : 'fz';
      const deep = ctx.random.chance(0.5) ? deepArray(10_000) : deepObject(10_000);
      return variant(op, ctx, `field ${field} nested 10,000 deep`, { body: spliced(catalogueOf(op) ? baseBody(op, ctx) : {}, field, deep) });
    },
  });
  makers.push({
    label: 'a string of 900 KB in a field',
    make: (ctx) => {
      const fields = fieldsFor(op, ctx);
      const field = fields.length ? ctx.random.pick(fields) : 'fz';
      return variant(op, ctx, `field ${field} = 900 KB string`, {
        body: JSON.stringify(withField(catalogueOf(op) ? baseBody(op, ctx) : {}, field, 'x'.repeat(900_000))),
      });
    },
  });
  makers.push(json('an array of 300,000 empty objects', () => `[${'{},'.repeat(300_000)}{}]`));
  makers.push(
    json('prototype keys', (ctx) => {
      const base = baseBody(op, ctx);
      const proto = '"__proto__":{"isAdmin":true,"grants":["*"]},"constructor":{"prototype":{"polluted":1}}';
      return Array.isArray(base) ? `[{${proto}}]` : `{${proto}${Object.keys(base as object).length ? `,${JSON.stringify(base).slice(1)}` : '}'}`;
    }),
  );
  makers.push(
    json('a key twice', (ctx) => {
      const fields = fieldsFor(op, ctx);
      const field = fields[0]?.replace(/^0\./, '') ?? 'fz';
      return `{"${field}":"fz-a","${field}":7}`;
    }),
  );
  makers.push(json('numbers at the edges', () => '{"a":1e999,"b":-1e999,"c":1e-400,"d":-0,"e":123456789012345678901234567890}'));
  for (const bad of BAD_UTF8) {
    makers.push(
      json(`bytes that are not UTF-8 (${bad.label})`, (ctx) => {
        const fields = fieldsFor(op, ctx);
        const field = fields.length ? ctx.random.pick(fields) : 'fz';
        const text = JSON.stringify(withField(catalogueOf(op) ? baseBody(op, ctx) : {}, field, '\u0001BAD\u0001'));
        const [a, b] = text.split('\\u0001BAD\\u0001') as [string, string];
        return Buffer.concat([Buffer.from(a), Buffer.from(bad.bytes), Buffer.from(b ?? '')]);
      }),
    );
  }
  makers.push(
    json(
      'the body in UTF-16 (declared)',
      (ctx) => Buffer.from(JSON.stringify(baseBody(op, ctx)), 'utf16le'),
      replacing('Content-Type', 'application/json; charset=utf-16'),
    ),
  );
  makers.push(json('the body in UTF-16 (undeclared)', (ctx) => Buffer.from(`\uFEFF${JSON.stringify(baseBody(op, ctx))}`, 'utf16le')));
  makers.push(
    json(
      'a gzip body (Content-Encoding: gzip)',
      (ctx) => gzipSync(JSON.stringify(baseBody(op, ctx))),
      (h) => [...h, ['Content-Encoding', 'gzip']],
    ),
  );
  makers.push(
    json(
      'a plain body declared gzip',
      (ctx) => JSON.stringify(baseBody(op, ctx)),
      (h) => [...h, ['Content-Encoding', 'gzip']],
    ),
  );
  for (const type of CONTENT_TYPES) {
    const shown = type.length > 40 ? `${type.slice(0, 10)}…(${type.length})` : type;
    makers.push(json(`content type ${JSON.stringify(shown)}`, (ctx) => JSON.stringify(baseBody(op, ctx)), replacing('Content-Type', type)));
  }
  makers.push(
    json(
      'two Content-Type headers (text/plain first)',
      (ctx) => JSON.stringify(baseBody(op, ctx)),
      (h) => [['Content-Type', 'text/plain'], ...h],
    ),
  );
  makers.push(json('no Content-Type', (ctx) => JSON.stringify(baseBody(op, ctx)), without('Content-Type')));
  makers.push({ label: 'an empty body (Content-Length: 0)', make: (ctx) => variant(op, ctx, 'an empty body', { body: '' }) });
  makers.push(
    json(
      'a chunked body',
      (ctx) => JSON.stringify(baseBody(op, ctx)),
      (h) => [...h, ['Transfer-Encoding', 'chunked']],
    ),
  );
  return makers;
}

function formMakers(op: Operation): CaseMaker[] {
  if (!op.body.includes('form')) return [];
  const FORM = 'application/x-www-form-urlencoded';
  const bodies = [
    '%',
    'a=%ZZ',
    '=&=&',
    '&&&&',
    `grant_type=password&username=${NOBODY}&password=x&password=y`,
    `grant_type=%00&username=%E2%80%AE&password=%FF`,
    'x'.repeat(100_000),
    `username=${NOBODY}&`.repeat(5000),
    '{"grant_type":"password"}',
    `grant_type=password&username=${'u'.repeat(5000)}&password=p`,
    `grant_type=client_credentials&username=${NOBODY}`,
    'transportUnitBK=FZTU1&loadUnitType=EURO-HALF&parts=-1',
    'transportUnitBK=FZTU1&loadUnitType=EURO-HALF&parts=1e3',
    'transportUnitBK=FZTU1&loadUnitType=EURO-HALF&parts=99999999999999999999',
    'transportUnitBK=%00&loadUnitType=%E2%80%AE&parts=2',
    'parts=0&parts=1',
  ];
  return bodies.map((text) => {
    const shown = text.length > 50 ? `${text.slice(0, 20)}…(${text.length})` : text;
    return {
      label: `form ${shown}`,
      make: (ctx) => httpCase(op, `form ${JSON.stringify(shown)}`, op.method, pathOf(op, ctx), [...authHeaders(ctx), ['Content-Type', FORM]], text),
    };
  });
}

function octetMakers(op: Operation): CaseMaker[] {
  if (!op.body.includes('octets')) return [];
  const bytes = (ctx: CaseContext, n: number) => Buffer.from(Array.from({ length: n }, () => ctx.random.int(0, 255)));
  const upload = (label: string, type: string, body: (ctx: CaseContext) => Buffer | string): CaseMaker => ({
    label,
    make: (ctx) => httpCase(op, label, op.method, pathOf(op, ctx), [...authHeaders(ctx), ['Content-Type', type]], body(ctx)),
  });
  return [
    upload('random bytes as image/png', 'image/png', (ctx) => bytes(ctx, 1024)),
    upload('300 KB as image/png (over the image limit)', 'image/png', (ctx) => bytes(ctx, 300 * 1024)),
    upload('an empty image', 'image/png', () => ''),
    upload('text as application/octet-stream', 'application/octet-stream', () => 'not an image'),
    upload('an SVG with a script', 'image/svg+xml', () => '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    upload('bytes as text/plain', 'text/plain', (ctx) => bytes(ctx, 64)),
    upload('a JSON body', JSON_TYPE, () => '{"image":"x"}'),
  ];
}

/** Bodies over the limit: declared (refused before reading), and sent (the connection is closed after the 413). */
function oversizeMakers(op: Operation): CaseMaker[] {
  if (op.body.length === 1 && op.body[0] === 'none') return [];
  const type = op.body.includes('json') ? JSON_TYPE : op.body.includes('form') ? 'application/x-www-form-urlencoded' : 'image/png';
  const head = (ctx: CaseContext, framing: string) =>
    Buffer.from(
      `${op.method} ${pathOf(op, ctx)} HTTP/1.1\r\nHost: ${ctx.host}\r\nAuthorization: Bearer ${ctx.token}\r\nX-Request-Id: fz-${ctx.next()}\r\nContent-Type: ${type}\r\n${framing}\r\n`,
    );
  return [
    {
      label: 'a declared body over the limit',
      make: (ctx) => ({
        op: op.name,
        label: 'Content-Length over the body limit (headers only)',
        unsafe: true,
        raw: { bytes: [head(ctx, `Content-Length: ${BODY_LIMIT + 1}\r\n`)] },
        expect: { status: [413], category: 'status' },
      }),
    },
    {
      label: 'a chunked body over the limit',
      make: (ctx) => {
        const chunk = `${(64 * 1024).toString(16)}\r\n${'x'.repeat(64 * 1024)}\r\n`;
        return {
          op: op.name,
          label: 'a chunked body of 1.1 MB',
          unsafe: true,
          // The appliance answers 413 and closes while bytes are still coming: a reset may race the reply.
          raw: {
            bytes: [head(ctx, 'Transfer-Encoding: chunked\r\n'), Buffer.from(chunk.repeat(18)), Buffer.from('0\r\n\r\n')],
            replyOptional: true,
            incomplete: true,
          },
          expect: { status: [413], category: 'status' },
        };
      },
    },
    {
      label: 'a body of 1.5 MB with its length',
      make: (ctx) => ({
        op: op.name,
        label: 'a body of 1.5 MB sent whole',
        unsafe: true,
        raw: { bytes: [head(ctx, `Content-Length: ${1_500_000}\r\n`), Buffer.alloc(1_500_000, 0x7b)], replyOptional: true, incomplete: true },
        expect: { status: [413], category: 'status' },
      }),
    },
  ];
}

// ---- methods and headers

function methodMakers(op: Operation): CaseMaker[] {
  const makers: CaseMaker[] = [];
  makers.push({
    label: 'an odd method',
    make: (ctx) => {
      const method = ctx.random.pick(ODD_METHODS.filter((m) => m !== op.method));
      return variant(op, ctx, `method ${method}`, { method });
    },
  });
  makers.push({ label: 'a method no parser knows', make: (ctx) => ({ ...variant(op, ctx, 'method FZ-ODD', { method: 'FZ-ODD' }), intended: [501] }) });
  if (op.method === 'GET') makers.push({ label: 'HEAD', make: (ctx) => variant(op, ctx, 'HEAD', { method: 'HEAD' }) });
  const preflight = (label: string, headers: Headers): CaseMaker => ({
    label,
    make: (ctx) => httpCase(op, label, 'OPTIONS', pathOf(op, ctx), [['X-Request-Id', `fz-${ctx.next()}`], ...headers]),
  });
  makers.push(
    preflight('preflight from a foreign origin', [
      ['Origin', 'http://evil.example'],
      ['Access-Control-Request-Method', 'DELETE'],
      ['Access-Control-Request-Headers', 'x-evil, authorization'],
    ]),
  );
  makers.push(
    preflight('preflight from origin null', [
      ['Origin', 'null'],
      ['Access-Control-Request-Method', 'FZ-ODD'],
    ]),
  );
  makers.push(
    preflight('preflight with a huge header list', [
      ['Origin', 'http://hmi.local'],
      ['Access-Control-Request-Method', op.method],
      ['Access-Control-Request-Headers', 'x,'.repeat(2000)],
    ]),
  );
  return makers;
}

function headerMakers(op: Operation): CaseMaker[] {
  const makers: CaseMaker[] = [];
  const withHeader = (label: string, change: (h: Headers) => Headers): CaseMaker => ({ label, make: (ctx) => variant(op, ctx, label, { headers: change }) });
  for (const accept of ACCEPTS) makers.push(withHeader(`Accept ${accept.length > 40 ? `${accept.slice(0, 10)}…` : accept}`, replacing('Accept', accept)));
  for (const id of HOSTILE_REQUEST_IDS)
    makers.push(withHeader(`X-Request-Id ${JSON.stringify(id.length > 40 ? `${id.slice(0, 10)}…` : id)}`, replacing('X-Request-Id', id)));
  for (const host of HOSTILE_HOSTS)
    makers.push(withHeader(`Host ${JSON.stringify(host.length > 40 ? `${host.slice(0, 10)}…` : host)}`, replacing('Host', host)));
  makers.push(withHeader('100 junk headers', (h) => [...h, ...Array.from({ length: 100 }, (_, i) => [`X-Fz-${i}`, 'v'] as [string, string])]));
  makers.push(withHeader('a cookie of 8 KB', (h) => [...h, ['Cookie', `a=${'c'.repeat(8192)}`]]));
  makers.push(withHeader('Expect: 100-continue', (h) => [...h, ['Expect', '100-continue']]));
  makers.push(withHeader('Expect: something unknown', (h) => [...h, ['Expect', 'fz-odd']]));
  makers.push(withHeader('an Origin that is not allowed', (h) => [...h, ['Origin', 'http://evil.example']]));
  makers.push(withHeader('Connection: close', (h) => [...h, ['Connection', 'close']]));
  makers.push(
    withHeader('an h2c upgrade', (h) => [...h, ['Connection', 'Upgrade, HTTP2-Settings'], ['Upgrade', 'h2c'], ['HTTP2-Settings', 'AAMAAABkAARAAAAAAAIAAAAA']]),
  );
  makers.push(
    withHeader('a websocket upgrade', (h) => [
      ...h,
      ['Connection', 'Upgrade'],
      ['Upgrade', 'websocket'],
      ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
      ['Sec-WebSocket-Version', '13'],
    ]),
  );
  makers.push(withHeader('Range and If-None-Match', (h) => [...h, ['Range', 'bytes=0-1,5-'], ['If-None-Match', '*']]));
  makers.push(
    withHeader('X-Forwarded-For and X-Forwarded-Host', (h) => [...h, ['X-Forwarded-For', '1.2.3.4, <script>'], ['X-Forwarded-Host', 'evil.example']]),
  );
  if (op.eventStream) {
    for (const id of ['-1', 'abc', '99999999999999999999', 'x'.repeat(1000), '1e3', '%00']) {
      makers.push(withHeader(`Last-Event-ID ${id.length > 20 ? `${id.slice(0, 5)}…` : id}`, (h) => [...h, ['Last-Event-ID', id]]));
    }
  }
  if (!takesJson(op) && op.method !== 'GET' && op.method !== 'DELETE') {
    makers.push({
      label: 'a body where none is taken',
      make: (ctx) => variant(op, ctx, 'a JSON body where none is taken', { body: '{"fz":1', headers: (h) => [...h, ['Content-Type', JSON_TYPE]] }),
    });
  }
  if (op.method === 'GET' || op.method === 'DELETE') {
    makers.push({
      label: 'a body on a GET or DELETE',
      make: (ctx) => variant(op, ctx, `a body on ${op.method}`, { body: 'x'.repeat(10_000), headers: (h) => [...h, ['Content-Type', 'text/plain']] }),
    });
  }
  return makers;
}

// ---- raw bytes: what no HTTP client sends

/** Raw requests against an operation's path; each on a connection of its own. */
function rawMakers(op: Operation): CaseMaker[] {
  // A route that takes no body runs without waiting for one: an upload cut short may still have been carried out.
  const readsBody = !(op.body.length === 1 && op.body[0] === 'none');
  const raw = (
    label: string,
    text: (ctx: CaseContext, path: string) => string | Buffer,
    options: { endAfterWrite?: boolean; replyOptional?: boolean; unknownMethod?: boolean } = {},
  ): CaseMaker => ({
    label: `raw: ${label}`,
    make: (ctx) => {
      const t = text(ctx, pathOf(op, ctx));
      const { unknownMethod, ...rest } = options;
      return {
        op: op.name,
        label: `raw: ${label}`,
        unsafe: !SAFE.has(op.method),
        raw: { bytes: [typeof t === 'string' ? Buffer.from(t, 'latin1') : t], ...rest, incomplete: readsBody && !!options.replyOptional },
        ...(unknownMethod ? { intended: [501] } : {}),
      };
    },
  });
  const auth = (ctx: CaseContext) => `Authorization: Bearer ${ctx.token}\r\nX-Request-Id: fz-${ctx.next()}\r\n`;
  const m = op.method;
  return [
    raw('a lower-case method', (ctx, p) => `${m.toLowerCase()} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`, { unknownMethod: true }),
    raw('a method token with @', (ctx, p) => `G@T ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n\r\n`, { unknownMethod: true }),
    raw('a header line without a colon', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Broken header\r\n\r\n`),
    raw('a header name with a space', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Bad Name: x\r\n\r\n`),
    raw('NUL in a header value', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}X-Fz: a\u0000b\r\n\r\n`),
    raw('a bare CR in a header value', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}X-Fz: a\rb\r\n\r\n`),
    raw('a folded header line', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}X-Fz: a\r\n b\r\n\r\n`),
    raw('a header of 20 KB', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}X-Fz: ${'h'.repeat(20_000)}\r\n\r\n`),
    raw('a URL of 20 KB', (ctx, p) => `${m} ${p}${p.includes('?') ? '&' : '?'}fz=${'u'.repeat(20_000)} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`),
    raw(
      'Content-Length and Transfer-Encoding together',
      (ctx, p) =>
        `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    ),
    raw(
      'two different Content-Lengths',
      (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{} `,
    ),
    raw('Content-Length abc', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Length: abc\r\n\r\n`),
    raw('Content-Length -1', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Length: -1\r\n\r\n`),
    raw(
      'a chunk size that is not hex',
      (ctx, p) =>
        `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ),
    raw(
      'a chunk size that overflows',
      (ctx, p) =>
        `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n{}\r\n0\r\n\r\n`,
    ),
    raw(
      'Transfer-Encoding gzip, chunked',
      (ctx, p) =>
        `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    ),
    raw('HTTP/1.1 without Host', (ctx, p) => `${m} ${p} HTTP/1.1\r\n${auth(ctx)}\r\n`),
    raw('two Host headers', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\nHost: evil.example\r\n${auth(ctx)}\r\n`),
    raw('version HTTP/2.0', (ctx, p) => `${m} ${p} HTTP/2.0\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`),
    raw('version HTTP/9.9', (ctx, p) => `${m} ${p} HTTP/9.9\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`),
    raw('no version (HTTP/0.9)', (_ctx, p) => `${m} ${p}\r\n\r\n`),
    raw('byte FF in the path', (ctx, p) =>
      Buffer.concat([Buffer.from(`${m} ${p}`), Buffer.from([0xff]), Buffer.from(` HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`)]),
    ),
    raw('raw UTF-8 in the path', (ctx, p) => Buffer.from(`${m} ${p}\u00e4\u202e HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`, 'utf8')),
    raw('a space in the path', (ctx, p) => `${m} ${p} x HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`),
    raw('NUL in the path', (ctx, p) => `${m} ${p}\u0000 HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`),
    raw('absolute-form with a foreign host', (ctx, p) => `${m} http://evil.example${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`),
    raw('asterisk-form', (ctx) => `OPTIONS * HTTP/1.1\r\nHost: ${ctx.host}\r\n\r\n`),
    raw('CONNECT', (ctx) => `CONNECT ${ctx.host} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}\r\n`),
    raw('the HTTP/2 preface', () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', { unknownMethod: true }),
    raw('TLS on the plain port', () => Buffer.from('16030100a5010000a10303', 'hex'), { unknownMethod: true }),
    raw(
      'an upload that stops half-way',
      (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`,
      { endAfterWrite: true, replyOptional: true },
    ),
    raw(
      'a chunked upload that stops half-way',
      (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\n${auth(ctx)}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"a":`,
      { endAfterWrite: true, replyOptional: true },
    ),
    raw('headers that stop half-way', (ctx, p) => `${m} ${p} HTTP/1.1\r\nHost: ${ctx.host}\r\nAuthori`, { endAfterWrite: true, replyOptional: true }),
  ];
}

/** Every hostile request the suite has for one operation. */
export function poolFor(op: Operation): CaseMaker[] {
  return [
    ...authMakers(op),
    ...pathMakers(op),
    ...queryMakers(op),
    ...bodyMakers(op),
    ...formMakers(op),
    ...octetMakers(op),
    ...oversizeMakers(op),
    ...methodMakers(op),
    ...headerMakers(op),
    ...rawMakers(op),
  ];
}

/**
 * The cases every run has once, whatever its length: each catalogue body as it is
 * (it must be accepted, or the suite no longer reaches the operation), each name of
 * it with NUL, a bidi control or a lone surrogate, and with bytes that are not UTF-8
 * (both must be refused).
 */
export function fixedCases(ctx: CaseContext): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const post = (entry: CatalogueEntry, label: string, body: string | Buffer, expect: FuzzCase['expect']): FuzzCase => ({
    op: entry.op,
    label,
    request: { method: 'POST', path: entry.path, headers: [...authHeaders(ctx), ['Content-Type', JSON_TYPE]], body },
    unsafe: true,
    ...(expect ? { expect } : {}),
  });
  for (const entry of CATALOGUE) {
    cases.push(post(entry, 'the catalogue body as it is', JSON.stringify(entry.build(ctx.next())), { accepted: true, category: 'catalogue' }));
    for (const field of entry.names) {
      for (const hostile of HOSTILE_NAME_CHARS) {
        const body = entry.build(ctx.next());
        const name = `FZ${ctx.next()}${hostile.char}x`;
        cases.push(
          post(entry, `name ${field} with ${hostile.label}`, JSON.stringify(withField(body, field, name)), {
            refused: true,
            category: 'hostile-name-accepted',
          }),
        );
      }
      for (const bad of BAD_UTF8) {
        const text = JSON.stringify(withField(entry.build(ctx.next()), field, `FZ${ctx.next()}\u0001BAD\u0001x`));
        const [a, b] = text.split('\\u0001BAD\\u0001') as [string, string];
        const body = Buffer.concat([Buffer.from(a), Buffer.from(bad.bytes), Buffer.from(b)]);
        cases.push(post(entry, `name ${field} with ${bad.label}`, body, { refused: true, category: 'bad-encoding-accepted' }));
      }
    }
  }
  return cases;
}

/**
 * Field names of a JSON operation from its validation error for an empty body
 * ("Validation failed: barcode: …; actualLocation: …"); an array body is tried as `[{}]`.
 */
export function fieldsFromValidation(message: string): string[] {
  const m = /^Validation failed: (.*)$/s.exec(message);
  if (!m) return [];
  const names = new Set<string>();
  for (const part of m[1]!.split('; ')) {
    const field = part.split(': ')[0]!;
    if (!field || field === 'body' || field.includes(' ')) continue;
    const segments = field.split('.');
    names.add(/^\d+$/.test(segments[0]!) && segments[1] ? `${segments[0]}.${segments[1]}` : segments[0]!);
  }
  return [...names];
}
