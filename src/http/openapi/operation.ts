import { STATUS_CODES } from 'node:http';
import { bodyKinds, HAL_JSON, JSON_TYPE, requestTypes, XML } from '../negotiation.ts';
import { AUTHENTICATED, PUBLIC, type Route } from '../router.ts';
import { refusalsOf, type RefusalResponses } from './refusals.ts';
import { isZod, type JsonSchema, type SchemaComponents } from './schemas.ts';

// One OpenAPI operation from the routes that share a path and a method.
//
// Many lookups of the spec share a path and differ by the query parameters that select
// them (`GET /v1/locations?erpCode=` vs `?plcCode=` vs no parameter). OpenAPI 3.1 has
// one operation per path and method, and a path key holds no query. Of the legal ways
// to say it, the one generated clients handle best is a single operation whose
// parameters are the union of the variants' (each optional unless every variant needs
// it; a parameter that selects by a fixed value, `op=change-state`, is an enum), whose
// request body and reply are `oneOf` the variants' schemas where they differ, and
// whose description lists the variants. Clients get one method with every parameter
// typed; extensions (`x-…`) are ignored by generators, so moving the variants there
// would hide them. `x-query-variants` repeats the list for tools that want it.

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, Response | { $ref: string }>;
  security: Record<string, string[]>[];
  'x-link-names'?: string[];
  'x-query-variants'?: { query: string; summary: string; linkNames?: string[] }[];
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

interface Response {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content?: Record<string, { schema: JsonSchema }>;
}

const BINARY: JsonSchema = { type: 'string', format: 'binary' };

/** A selecting query parameter: `locationId`, or `op=change-state` with its value. */
const selectorsOf = (route: Route) =>
  (route.query ?? []).map((q) => {
    const [name, value] = q.split('=', 2) as [string, string | undefined];
    return { name, value };
  });

const linkNames = (route: Route): string[] => (route.link === undefined ? [] : typeof route.link === 'string' ? [route.link] : [...route.link]);

const statusesOf = (route: Route): number[] => (route.status === undefined ? [200] : typeof route.status === 'number' ? [route.status] : [...route.status]);

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** `oneOf` of distinct schemas; one schema as it is. */
function oneOf(schemas: JsonSchema[]): JsonSchema {
  const distinct = new Map(schemas.map((s) => [JSON.stringify(s), s]));
  return distinct.size === 1 ? [...distinct.values()][0]! : { oneOf: [...distinct.values()] };
}

/** The module a path belongs to, for grouping: `/v1/locations/…` → `locations`. */
export function tagOf(path: string): string {
  const parts = path.split('/').filter((p) => p && !p.startsWith('{'));
  const first = parts[0] === 'v1' ? parts[1] : parts[0];
  return first === 'api' || first === 'ui' ? (parts[2] ?? first) : (first ?? 'system');
}

export function derivedOperationId(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase())}`;
}

/** `shadowed`: a literal path of the table fits this path's template but does not serve the method (405). */
export function operationOf(
  variants: readonly Route[],
  components: SchemaComponents,
  refusals: RefusalResponses,
  operationId: string,
  shadowed: boolean,
): Operation {
  const first = variants[0]!;
  const merged = variants.length > 1;
  const plain = variants.find((v) => !v.query?.length) ?? first;
  const operation: Operation = {
    operationId,
    summary: merged ? `${plain.summary} Query parameters select other variants: see the description.` : first.summary,
    tags: [tagOf(first.path)],
    responses: {},
    security: security(variants),
  };
  const description = describe(variants);
  if (description) operation.description = description;
  const parameters = [
    ...pathParams(first.path).map((name): Parameter => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...queryParameters(variants, components),
  ];
  if (variants.some((v) => v.eventStream)) {
    parameters.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'The id of the last event received: the stream replays what came after it from the durable log.',
    });
  }
  if (parameters.length) operation.parameters = parameters;
  const body = requestBody(variants, components);
  if (body) operation.requestBody = body;
  const paged = parameters.some((p) => p.in === 'query' && p.name === 'after');
  Object.assign(operation.responses, successResponses(variants, components, paged));
  const refused = refusalsOf(
    variants,
    !!body,
    parameters.some((p) => p.in === 'query'),
    shadowed,
  );
  for (const [status, bodies] of [...refused].sort(([a], [b]) => a - b)) {
    operation.responses[String(status)] = refusals.ref(status, bodies, `${first.method} ${first.path}`);
  }
  const links = variants.flatMap(linkNames);
  if (links.length) operation['x-link-names'] = links;
  if (merged) {
    operation['x-query-variants'] = variants.map((v) => ({
      query: queryOf(v) || '(none)',
      summary: v.summary,
      ...(linkNames(v).length ? { linkNames: linkNames(v) } : {}),
    }));
  }
  return operation;
}

/** The query part of a route's href template: `locationId={locationId}`, `op=change-state`. */
function queryOf(route: Route): string {
  const selecting = (route.query ?? []).map((q) => (q.includes('=') ? q : `${q}={${q}}`));
  return selecting.join('&');
}

function describe(variants: readonly Route[]): string | undefined {
  const lines: string[] = [];
  if (variants.length > 1) {
    lines.push('The query parameters select one of these variants (the first that fits, most parameters first):', '');
    // In the router's order: the variant requiring the most parameters is tried first.
    const order = [...variants].sort((a, b) => (b.query?.length ?? 0) - (a.query?.length ?? 0));
    for (const v of order) {
      const query = queryOf(v);
      const links = linkNames(v);
      lines.push(`- ${query ? `\`?${query}\`` : 'without them'}${links.length ? ` (link \`${links.join('`, `')}\`)` : ''}: ${v.summary}`);
    }
  }
  if (variants.some((v) => v.eventStream)) {
    if (lines.length) lines.push('');
    lines.push(
      'A Server-Sent Events stream: each event as `id` (the event id), `event` (its type) and `data` (the event as JSON, see the `Event` schema); ' +
        '`event: reset` when the events after Last-Event-ID are no longer kept, `event: closed` when the stream ends (its user was locked, the appliance stops).',
    );
  }
  if (variants.some((v) => v.ticket)) {
    lines.push('', 'Browsers, whose EventSource cannot send an Authorization header, authenticate with `?ticket=` from POST /v1/events/tickets instead.');
  }
  return lines.length ? lines.join('\n') : undefined;
}

function security(variants: readonly Route[]): Record<string, string[]>[] {
  const grants = [...new Set(variants.map((v) => v.grant))].filter((g) => g !== PUBLIC);
  if (grants.length === 0) return [];
  // The grant as a scope of both schemes: a token, or an API key of a role that holds it;
  // a route for any caller needs a token without scope. Variants needing different
  // grants: each grant is an alternative; a public variant adds "none".
  const requirements: Record<string, string[]>[] = grants.flatMap((g): Record<string, string[]>[] => {
    const scopes = g === AUTHENTICATED ? [] : [g];
    return [{ oauth2: scopes }, { bearer: scopes }];
  });
  if (variants.some((v) => v.ticket)) requirements.push({ eventTicket: [] });
  if (variants.some((v) => v.grant === PUBLIC)) requirements.push({});
  return requirements;
}

function queryParameters(variants: readonly Route[], components: SchemaComponents): Parameter[] {
  const names: string[] = [];
  const typed = new Map<string, JsonSchema>();
  const reads = variants.map((v) => {
    const properties = v.querySchema ? propertiesOf(components.convert(v.querySchema, 'input')) : {};
    const parsed = v.querySchema ? propertiesOf(components.convert(v.querySchema, 'output')) : {};
    // A ticket is a way to authenticate: the eventTicket security scheme says it.
    const own = [...selectorsOf(v).map((s) => s.name), ...(v.optionalQuery ?? []), ...Object.keys(properties)].filter((n) => !(v.ticket && n === 'ticket'));
    for (const name of own) {
      if (!names.includes(name)) names.push(name);
      if (properties[name] && !typed.has(name)) typed.set(name, queryForm(properties[name], parsed[name]));
    }
    return new Set(own);
  });
  return names.map((name) => {
    const selecting = variants.map((v) => selectorsOf(v).find((s) => s.name === name));
    const naming = variants.flatMap((_, i) => (reads[i]!.has(name) ? [i] : []));
    // Fixed values (`op=change-state`) only when every variant that reads the parameter fixes it.
    const fixed = naming.every((i) => selecting[i]?.value !== undefined);
    const schema: JsonSchema = fixed
      ? { type: 'string', enum: [...new Set(naming.map((i) => selecting[i]!.value!))] }
      : (typed.get(name) ?? { type: 'string' });
    const parameter: Parameter = { name, in: 'query', required: selecting.every((s) => s !== undefined), schema };
    const selects = variants.filter((_, i) => selecting[i] !== undefined);
    if (variants.length > 1 && selects.length > 0 && selects.length < variants.length) {
      parameter.description = `Selects: ${selects.map((v) => v.summary.replace(/\.$/, '')).join(' | ')}.`;
    }
    return parameter;
  });
}

const propertiesOf = (schema: JsonSchema) => (schema.properties ?? {}) as Record<string, JsonSchema>;

/**
 * A query parameter's schema as its wire form: a parameter that may be repeated or
 * comma-separated (zod: a string or an array) is described as an array (`?s=A&s=B`),
 * with the values it is checked against where the parsed form names them; a number
 * is described as the number it is parsed to.
 */
function queryForm(input: JsonSchema, parsed: JsonSchema | undefined): JsonSchema {
  // A number sent as its digits (`limit`): the number, with its bounds and default.
  if (input.type === 'string' && (parsed?.type === 'integer' || parsed?.type === 'number')) return parsed;
  const list = (input.anyOf as JsonSchema[] | undefined)?.find((a) => a.type === 'array');
  if (!list) return input;
  const values = (parsed?.items as JsonSchema | undefined)?.enum;
  return parsed?.type === 'array' && values ? { type: 'array', items: { type: 'string', enum: values } } : list;
}

function requestBody(variants: readonly Route[], components: SchemaComponents): Operation['requestBody'] | undefined {
  const content: Record<string, JsonSchema[]> = {};
  let optional = false;
  for (const v of variants) {
    const kinds = bodyKinds(v);
    const schema = v.requestSchema ? components.convert(v.requestSchema, 'input') : {};
    if (kinds.includes('none') || (v.requestSchema && isZod(v.requestSchema) && v.requestSchema.safeParse(undefined).success)) optional = true;
    // Every media type the server takes the body as (negotiation.ts), each with what it carries.
    for (const kind of kinds) for (const type of requestTypes(v, kind)) (content[type] ??= []).push(kind === 'octets' ? BINARY : schema);
  }
  if (Object.keys(content).length === 0) return undefined;
  return { required: !optional, content: Object.fromEntries(Object.entries(content).map(([type, schemas]) => [type, { schema: oneOf(schemas) }])) };
}

/** `paged`: a list in pages (core/paging.ts), the next named in a Link header. */
function successResponses(variants: readonly Route[], components: SchemaComponents, paged: boolean): Record<string, Response> {
  const byStatus = new Map<number, Route[]>();
  for (const v of variants) for (const status of statusesOf(v)) byStatus.set(status, [...(byStatus.get(status) ?? []), v]);
  const responses: Record<string, Response> = {};
  for (const [status, routes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const response: Response = { description: STATUS_CODES[status] ?? String(status) };
    const content = status === 204 ? {} : replyContent(routes, components);
    if (Object.keys(content).length) response.content = content;
    if (status === 201) response.headers = { Location: { description: 'Where the new resource is.', schema: { type: 'string', format: 'uri' } } };
    if (paged && status === 200) {
      response.headers = {
        Link: { description: 'While more exist: `<…>; rel="next"`, the request with the cursor of the next page.', schema: { type: 'string' } },
      };
    }
    responses[String(status)] = response;
  }
  return responses;
}

function replyContent(routes: readonly Route[], components: SchemaComponents): Record<string, { schema: JsonSchema }> {
  const content: Record<string, JsonSchema[]> = {};
  const add = (type: string, schema: JsonSchema) => (content[type] ??= []).push(schema);
  for (const r of routes) {
    if (r.eventStream) {
      add('text/event-stream', { type: 'string', description: 'Server-Sent Events; `data` of each event is an `Event` as JSON.' });
      continue;
    }
    if (r.responseSchema === null) continue;
    if (r.replyType) {
      add(r.replyType, r.replyType.startsWith('text/') ? { type: 'string' } : BINARY);
      continue;
    }
    const schema = r.responseSchema ? components.convert(r.responseSchema, 'output') : r.index ? { $ref: '#/components/schemas/Index' } : {};
    for (const type of [...(r.vendorTypes ?? []), HAL_JSON, JSON_TYPE]) add(type, schema);
    if (r.index)
      add(XML, { type: 'string', description: 'The links as Atom links, <index><atom:link rel="…" href="…"/></index>; a URI template adds templated="true".' });
  }
  return Object.fromEntries(Object.entries(content).map(([type, schemas]) => [type, { schema: oneOf(schemas) }]));
}
