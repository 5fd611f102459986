import { STATUS_CODES } from 'node:http';
import { hrefTemplate, type Route } from './router.ts';

// The API description, generated from the route table, so it can never disagree
// with what the router serves: every path and method, the query parameters that
// select a route, the grant it needs (as an OAuth scope), its link name(s) and media
// types. Bodies are described by the documents in docs/ and the spec.

interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  parameters: { name: string; in: 'path' | 'query'; required: boolean; schema: { type: 'string' } }[];
  security?: { bearer: string[] }[];
  'x-link-names'?: string[];
  'x-query-selects'?: string;
  requestBody?: { required: boolean; content: Record<string, object> };
  responses: Record<string, { description: string; content?: Record<string, object> }>;
}

const BODY_TYPES: Record<string, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  octets: 'application/octet-stream',
};

/** The module a path belongs to, for grouping: `/v1/locations/…` → `locations`. */
function tagOf(path: string): string {
  const parts = path.split('/').filter((p) => p && !p.startsWith('{'));
  const first = parts[0] === 'v1' ? parts[1] : parts[0];
  return first === 'api' || first === 'ui' ? (parts[2] ?? first) : (first ?? 'system');
}

export function openApiDocument(routes: readonly Route[], info: { version: string; serverUrl: string }) {
  const paths: Record<string, Record<string, Operation>> = {};
  const seen = new Map<string, number>();
  for (const route of routes) {
    // Several routes share a path and method and differ by query: OpenAPI allows one
    // operation per path and method, so each variant gets its path with the query.
    const selects = route.query?.length ? `?${route.query.join('&')}` : '';
    const key = route.path + selects;
    paths[key] ??= {};
    const links = route.link === undefined ? [] : typeof route.link === 'string' ? [route.link] : [...route.link];
    const base = links[0] ?? `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase())}`;
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const kinds = route.body === undefined ? (route.method === 'GET' || route.method === 'DELETE' ? [] : ['json']) : typeof route.body === 'string' ? [route.body] : [...route.body];
    const requestTypes = kinds.filter((k) => k !== 'none').map((k) => BODY_TYPES[k]!);
    const responseTypes = route.eventStream
      ? ['text/event-stream']
      : [...(route.vendorTypes ?? []), 'application/hal+json', 'application/json', ...(route.index ? ['application/xml'] : [])];
    const operation: Operation = {
      operationId: count === 0 ? base : `${base}-${count + 1}`,
      summary: route.summary,
      tags: [tagOf(route.path)],
      parameters: [
        ...pathParams.map((name) => ({ name, in: 'path' as const, required: true, schema: { type: 'string' as const } })),
        ...(route.query ?? []).map((q) => ({ name: q.split('=')[0]!, in: 'query' as const, required: true, schema: { type: 'string' as const } })),
        ...(route.optionalQuery ?? []).map((name) => ({ name, in: 'query' as const, required: false, schema: { type: 'string' as const } })),
      ],
      responses: {
        default: { description: 'The reply; errors carry the API-declined or server-declined body of spec Document 1.' },
        ...Object.fromEntries(
          [400, 401, 403, 404, 409].map((s) => [String(s), { description: STATUS_CODES[s] ?? String(s) }]),
        ),
      },
    };
    if (route.grant !== 'public') operation.security = [{ bearer: [route.grant] }];
    if (links.length) operation['x-link-names'] = links;
    if (selects) operation['x-query-selects'] = hrefTemplate(route);
    if (requestTypes.length) {
      operation.requestBody = { required: false, content: Object.fromEntries(requestTypes.map((t) => [t, {}])) };
    }
    operation.responses.default!.content = Object.fromEntries(responseTypes.map((t) => [t, {}]));
    paths[key][route.method.toLowerCase()] = operation;
  }
  const grants = [...new Set(routes.map((r) => r.grant).filter((g) => g !== 'public'))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Warehouse appliance API',
      version: info.version,
      description: 'Generated from the route table. Grants are OAuth scopes of the bearer token (POST /oauth/token).',
    },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'oauth2',
          flows: { password: { tokenUrl: `${info.serverUrl}/oauth/token`, scopes: Object.fromEntries(grants.map((g) => [g, g])) } },
        },
      },
    },
    paths,
  };
}
