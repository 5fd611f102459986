import { describe, expect, it } from 'vitest';
import { ServerDeclined } from './errors.ts';
import { Router, RouteTableError, hrefTemplate, type Match, type Method, type Route } from './router.ts';

// Unit tests of the route table: what the router refuses at start-up, and which
// route (or which refusal) a request gets.

/** A route whose handler answers its own name, so a match tells which route won. */
function route(method: Method, path: string, extra: Partial<Route> = {}): Route {
  const name = extra.summary ?? `${method} ${path}${extra.query ? `?${extra.query.join('&')}` : ''}`;
  return { method, path, grant: 'things:read', summary: name, handler: () => ({ status: 200, body: name }), ...extra };
}

const q = (text = '') => new URLSearchParams(text);

/** The summary of the matched route, or the kind of refusal. */
function winner(match: Match): string {
  return match.kind === 'route' ? match.route.summary : match.kind;
}

describe('Router start-up validation', () => {
  it.each([
    ['no leading slash', 'v1/things'],
    ['a trailing slash', '/v1/things/'],
    ['an empty segment', '/v1//things'],
    ['a space in a segment', '/v1/th ings'],
    ['a question mark in a segment', '/v1/things?x'],
    ['a percent sign in a segment', '/v1/th%20ings'],
    ['a parameter glued to literal text', '/v1/things/x{pKey}'],
    ['a parameter name starting with a digit', '/v1/things/{1pKey}'],
    ['an unclosed parameter', '/v1/things/{pKey'],
    ['the same parameter name twice', '/v1/{id}/things/{id}'],
  ])('refuses a path with %s', (_why, path) => {
    expect(() => new Router([route('GET', path)])).toThrow(RouteTableError);
  });

  it('names the offending route in the error', () => {
    expect(() => new Router([route('GET', '/v1/things/')])).toThrow(/GET \/v1\/things\//);
  });

  it('accepts well-formed literal and parameter paths', () => {
    expect(
      () =>
        new Router([
          route('GET', '/index', { grant: 'public' }),
          route('GET', '/v1/session', { grant: 'authenticated' }),
          route('GET', '/v1/things/{pKey}'),
          route('GET', '/v1/thing-groups/{groupName}/members/{memberId}'),
          route('GET', '/v1/things_2/a.b'),
        ]),
    ).not.toThrow();
  });

  it('refuses two routes with the same method and path', () => {
    expect(() => new Router([route('GET', '/v1/things'), route('GET', '/v1/things')])).toThrow(RouteTableError);
  });

  it('refuses two routes whose paths differ only in parameter names (same shape)', () => {
    expect(() => new Router([route('GET', '/v1/things/{pKey}'), route('GET', '/v1/things/{id}')])).toThrow(RouteTableError);
  });

  it('refuses two routes with the same query set, whatever the order of its names', () => {
    expect(() => new Router([route('GET', '/v1/things', { query: ['a', 'b'] }), route('GET', '/v1/things', { query: ['b', 'a'] })])).toThrow(RouteTableError);
  });

  it('refuses two routes with the same name=value requirement', () => {
    expect(
      () => new Router([route('PATCH', '/v1/thing/{pKey}', { query: ['op=change-state'] }), route('PATCH', '/v1/thing/{id}', { query: ['op=change-state'] })]),
    ).toThrow(RouteTableError);
  });

  it('allows one path and method with different query sets, and one path with different methods', () => {
    expect(
      () =>
        new Router([
          route('GET', '/v1/things'),
          route('GET', '/v1/things', { query: ['a'] }),
          route('GET', '/v1/things', { query: ['a', 'b'] }),
          route('PATCH', '/v1/things', { query: ['op=change-state'] }),
          route('PATCH', '/v1/things', { query: ['op=rename'] }),
          route('POST', '/v1/things'),
          route('DELETE', '/v1/things'),
        ]),
    ).not.toThrow();
  });

  it('refuses a malformed query requirement', () => {
    expect(() => new Router([route('GET', '/v1/things', { query: ['1abc'] })])).toThrow(RouteTableError);
    expect(() => new Router([route('GET', '/v1/things', { query: ['a-b'] })])).toThrow(RouteTableError);
  });

  it.each([
    ['an empty grant', ''],
    ['a grant without an action', 'things'],
    ['a grant in upper case', 'Things:Read'],
    ['a grant with two colons', 'things:read:all'],
    ['a grant with a space', 'things: read'],
    ['"Public" in the wrong case', 'Public'],
    ['a grant with a digit', 'things2:read'],
  ])('refuses %s', (_why, grant) => {
    expect(() => new Router([route('GET', '/v1/things', { grant })])).toThrow(RouteTableError);
  });

  it('accepts "public" and resource:action grants with dashes', () => {
    expect(
      () =>
        new Router([
          route('GET', '/index', { grant: 'public' }),
          route('GET', '/v1/location-groups', { grant: 'location-groups:read' }),
          route('POST', '/v1/location-groups', { grant: 'location-groups:write' }),
        ]),
    ).not.toThrow();
  });
});

describe('Router matching', () => {
  const router = new Router([
    route('GET', '/index', { grant: 'public' }),
    route('GET', '/x/index'),
    route('GET', '/x/{pKey}'),
    route('DELETE', '/x/{pKey}'),
    route('GET', '/x'),
    route('POST', '/x'),
    route('GET', '/x', { query: ['a'] }),
    route('GET', '/x', { query: ['a', 'b'] }),
    route('PATCH', '/x/{pKey}', { query: ['op=change-state'] }),
    route('PATCH', '/y', { query: ['name', 'op=change-state'] }),
    route('GET', '/z', { query: ['a'] }),
    route('GET', '/z', { query: ['a', 'b'] }),
    route('GET', '/p/{a}/c'),
    route('GET', '/p/{a}/{b}'),
    route('DELETE', '/q/{a}/c'),
    route('PUT', '/q/{a}/{b}'),
  ]);

  it('matches a literal path', () => {
    expect(winner(router.match('GET', '/index', q()))).toBe('GET /index');
  });

  it('prefers a literal segment over a parameter: /x/index is never a pKey', () => {
    expect(winner(router.match('GET', '/x/index', q()))).toBe('GET /x/index');
    const other = router.match('GET', '/x/abc', q());
    expect(winner(other)).toBe('GET /x/{pKey}');
    expect(other.kind === 'route' && other.params).toEqual({ pKey: 'abc' });
  });

  it('prefers the shape with fewer parameters when two shapes fit', () => {
    expect(winner(router.match('GET', '/p/1/c', q()))).toBe('GET /p/{a}/c');
    const both = router.match('GET', '/p/1/d', q());
    expect(winner(both)).toBe('GET /p/{a}/{b}');
    expect(both.kind === 'route' && both.params).toEqual({ a: '1', b: 'd' });
  });

  it('takes the next fitting shape when the first one does not serve the method', () => {
    expect(winner(router.match('PUT', '/q/1/c', q()))).toBe('PUT /q/{a}/{b}');
    expect(winner(router.match('DELETE', '/q/1/c', q()))).toBe('DELETE /q/{a}/c');
  });

  it('picks the most specific query variant', () => {
    expect(winner(router.match('GET', '/x', q('a=1&b=2')))).toBe('GET /x?a&b');
    expect(winner(router.match('GET', '/x', q('b=2&a=1')))).toBe('GET /x?a&b');
    expect(winner(router.match('GET', '/x', q('a=1')))).toBe('GET /x?a');
    expect(winner(router.match('GET', '/x', q()))).toBe('GET /x');
  });

  it('falls back to the variant without requirements when unknown parameters are sent', () => {
    expect(winner(router.match('GET', '/x', q('b=2&c=3')))).toBe('GET /x');
  });

  it('counts an empty value as present', () => {
    expect(winner(router.match('GET', '/x', q('a=')))).toBe('GET /x?a');
  });

  it('answers query-missing, naming the expected sets, when no variant is satisfied', () => {
    const missing = router.match('GET', '/z', q('b=2'));
    expect(missing).toEqual({ kind: 'query-missing', expected: ['a&b', 'a'] });
  });

  it('requires the value of a name=value requirement', () => {
    const ok = router.match('PATCH', '/x/k1', q('op=change-state'));
    expect(winner(ok)).toBe('PATCH /x/{pKey}?op=change-state');
    expect(ok.kind === 'route' && ok.params).toEqual({ pKey: 'k1' });
    expect(router.match('PATCH', '/x/k1', q('op=rename'))).toEqual({ kind: 'query-missing', expected: ['op=change-state'] });
    expect(router.match('PATCH', '/x/k1', q())).toEqual({ kind: 'query-missing', expected: ['op=change-state'] });
  });

  it('combines plain and name=value requirements', () => {
    expect(winner(router.match('PATCH', '/y', q('name=G&op=change-state')))).toBe('PATCH /y?name&op=change-state');
    expect(router.match('PATCH', '/y', q('op=change-state')).kind).toBe('query-missing');
    expect(router.match('PATCH', '/y', q('name=G&op=other')).kind).toBe('query-missing');
  });

  it('tolerates one trailing slash on literal and parameter paths', () => {
    expect(winner(router.match('GET', '/x/', q()))).toBe('GET /x');
    expect(winner(router.match('GET', '/x/index/', q()))).toBe('GET /x/index');
    const withSlash = router.match('GET', '/x/abc/', q());
    expect(winner(withSlash)).toBe('GET /x/{pKey}');
    expect(withSlash.kind === 'route' && withSlash.params).toEqual({ pKey: 'abc' });
  });

  it('answers not-found for unknown paths, extra segments and empty parameter segments', () => {
    expect(router.match('GET', '/nothing', q())).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/x/abc/def/ghi', q())).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/x//', q())).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/p//c', q())).toEqual({ kind: 'not-found' });
  });

  it('answers method-not-allowed with the methods served at the path', () => {
    const literal = router.match('DELETE', '/x', q());
    expect(literal.kind).toBe('method-not-allowed');
    expect(literal.kind === 'method-not-allowed' && [...literal.allow].sort()).toEqual(['GET', 'POST']);
    const param = router.match('POST', '/x/abc', q());
    expect(param.kind === 'method-not-allowed' && [...param.allow].sort()).toEqual(['DELETE', 'GET', 'PATCH']);
  });

  it('percent-decodes path parameters', () => {
    const m = router.match('GET', '/x/FGIN%2F0001%2F0001%2F0000%2F0000', q());
    expect(m.kind === 'route' && m.params).toEqual({ pKey: 'FGIN/0001/0001/0000/0000' });
    const unicode = router.match('GET', '/x/%C3%A4%20b', q());
    expect(unicode.kind === 'route' && unicode.params).toEqual({ pKey: 'ä b' });
  });

  it('refuses a parameter that is not valid percent-encoding with a 400', () => {
    let thrown: unknown;
    try {
      router.match('GET', '/x/%E0%A4', q());
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ServerDeclined);
    expect((thrown as ServerDeclined).status).toBe(400);
  });

  it('matches HEAD as GET', () => {
    expect(winner(router.match('HEAD', '/index', q()))).toBe('GET /index');
    expect(winner(router.match('HEAD', '/x/abc', q()))).toBe('GET /x/{pKey}');
    expect(winner(router.match('HEAD', '/x', q('a=1')))).toBe('GET /x?a');
  });

  it('answers method-not-allowed for a method no route knows', () => {
    expect(router.match('TRACE', '/x', q()).kind).toBe('method-not-allowed');
  });

  it('lists the methods served at a path, and none at an unknown one', () => {
    expect([...router.methodsAt('/x')].sort()).toEqual(['GET', 'POST']);
    expect([...router.methodsAt('/x/abc')].sort()).toEqual(['DELETE', 'GET', 'PATCH']);
    expect(router.methodsAt('/nothing')).toEqual([]);
  });

  it('keeps the routes it was given', () => {
    expect(router.routes).toHaveLength(16);
  });
});

describe('hrefTemplate', () => {
  it('is the path itself for a route without query parameters', () => {
    expect(hrefTemplate(route('GET', '/v1/locations/{pKey}'))).toBe('/v1/locations/{pKey}');
  });

  it('adds name={name} placeholders for required and then optional parameters', () => {
    expect(hrefTemplate(route('GET', '/v1/locations', { query: ['locationId'] }))).toBe('/v1/locations?locationId={locationId}');
    expect(hrefTemplate(route('GET', '/v1/locations', { query: ['area'], optionalQuery: ['aisle', 'x'] }))).toBe(
      '/v1/locations?area={area}&aisle={aisle}&x={x}',
    );
  });

  it('keeps name=value requirements as they are', () => {
    expect(hrefTemplate(route('PATCH', '/v1/location/{pKey}', { query: ['op=change-state'] }))).toBe('/v1/location/{pKey}?op=change-state');
    expect(hrefTemplate(route('PATCH', '/v1/location-groups', { query: ['name', 'op=change-state'] }))).toBe('/v1/location-groups?name={name}&op=change-state');
  });

  it('uses linkHref when the route gives one', () => {
    expect(hrefTemplate(route('GET', '/v1/things', { query: ['a'], linkHref: '/v1/things?a=FOO' }))).toBe('/v1/things?a=FOO');
  });
});
