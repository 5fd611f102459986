import { derivedOperationId, operationOf, tagOf, type Operation } from './openapi/operation.ts';
import { RefusalResponses, shadowedOperations } from './openapi/refusals.ts';
import { ApiDeclinedSchema, IndexSchema, ServerDeclinedSchema } from './openapi/representation.ts';
import { SchemaComponents } from './openapi/schemas.ts';
import { grantsOf, type Route } from './router.ts';

// The API description (OpenAPI 3.1), generated from the route table, so it can never
// disagree with what the router serves: every path and method, the grant each needs
// (as an OAuth scope), request and reply schemas from the routes' zod schemas and
// representation schemas, the refusals each can give in the spec's error format, link
// names. How routes that differ only by query become one operation: openapi/operation.ts.

interface ApiInfo {
  version: string;
  /** Base URL of the appliance as the client reached it. */
  serverUrl: string;
}

type Document = ReturnType<typeof build>;

/** Built once per route table; only the server URL differs between requests. */
const built = new WeakMap<readonly Route[], Document>();

export function openApiDocument(routes: readonly Route[], info: ApiInfo) {
  let doc = built.get(routes);
  if (!doc) {
    doc = build(routes, info.version);
    built.set(routes, doc);
  }
  const { oauth2, ...schemes } = doc.components.securitySchemes;
  return {
    ...doc,
    servers: [{ url: info.serverUrl, description: 'This appliance, as the request reached it.' }],
    components: {
      ...doc.components,
      securitySchemes: {
        ...schemes,
        oauth2: { ...oauth2, flows: { password: { ...oauth2.flows.password, tokenUrl: `${info.serverUrl}/oauth/token` } } },
      },
    },
  };
}

function build(routes: readonly Route[], version: string) {
  const components = new SchemaComponents();
  // Named before the operations, so that they come first among the components.
  components.convert(IndexSchema, 'output');
  const refusals = new RefusalResponses({ api: components.convert(ApiDeclinedSchema, 'output'), server: components.convert(ServerDeclinedSchema, 'output') });
  const shadowed = shadowedOperations(routes);

  const groups = new Map<string, Route[]>();
  for (const route of routes) {
    const key = `${route.path} ${route.method}`;
    groups.set(key, [...(groups.get(key) ?? []), route]);
  }
  const paths: Record<string, Record<string, Operation>> = {};
  const ids = new Map<string, number>();
  for (const variants of groups.values()) {
    const first = variants[0]!;
    const link = variants.length === 1 ? [first.link ?? []].flat()[0] : undefined;
    const base = link ?? derivedOperationId(first);
    const count = (ids.get(base) ?? 0) + 1;
    ids.set(base, count);
    const id = count === 1 ? base : `${base}-${count}`;
    (paths[first.path] ??= {})[first.method.toLowerCase()] = operationOf(variants, components, refusals, id, shadowed.has(`${first.path} ${first.method}`));
  }

  const grants = grantsOf(routes);
  const tags = [...new Set(routes.map((r) => tagOf(r.path)))].sort();
  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'Warehouse appliance API',
      version,
      // The package is UNLICENSED: proprietary, no licence granted. The SPDX list names no such
      // licence; `LicenseRef-` is SPDX's form for one it does not list.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'The warehouse REST API of the appliance, generated from its route table. Every operation needs a grant, given as an OAuth scope: ' +
        'a bearer token from POST /oauth/token (password flow) or an API key carries the grants of its roles. Start at the public GET /index, ' +
        'whose links lead to every module index. Refusals carry one of the two error bodies: `ApiDeclined` (application/hal+json) from ' +
        'validation and module rules, `ServerDeclined` (application/json) for requests refused before processing and failures; each status ' +
        'of an operation lists the media types it is really sent with. A path no operation serves answers 404, a method a path does not serve ' +
        '405 (with Allow), both ServerDeclined.',
    },
    servers: [] as { url: string; description: string }[],
    tags: tags.map((name) => ({ name, description: `Operations under ${name}.` })),
    paths,
    components: {
      schemas: components.schemas,
      responses: refusals.responses,
      securitySchemes: {
        oauth2: {
          type: 'oauth2' as const,
          description: "Username and password for a token (grant_type=password); the grants of the user's roles are its scopes.",
          flows: { password: { tokenUrl: '/oauth/token', scopes: Object.fromEntries(grants.map((g) => [g, `The grant ${g}.`])) } },
        },
        bearer: {
          type: 'http' as const,
          scheme: 'bearer',
          bearerFormat: 'JWT or API key',
          description: 'Authorization: Bearer with a token from POST /oauth/token, or with an API key (POST /api-keys); the grants listed are needed.',
        },
        eventTicket: {
          type: 'apiKey' as const,
          in: 'query' as const,
          name: 'ticket',
          description: 'A single-use ticket from POST /v1/events/tickets (valid 60 s) that opens the event stream as the caller who took it.',
        },
      },
    },
  };
}
