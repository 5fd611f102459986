import type { IndexBody } from './hal.ts';
import type { BodyKind, Route } from './router.ts';

// Media types of the API conventions (README, "API"). Clients name a vendor type
// (`application/vnd.vendor.<module>.<resource>-v1+json`), `application/hal+json` or
// `application/json`; all three carry the same JSON. A reply is of the type asked for
// when the route offers it (the first offered one in the client's order), else 406.
// Without a preference, single resources and indexes answer `application/hal+json` and
// lists `application/json`, as the spec observed. XML exists for index resources only,
// and only when asked.

export const HAL_JSON = 'application/hal+json';
export const JSON_TYPE = 'application/json';
export const XML = 'application/xml';
export const FORM = 'application/x-www-form-urlencoded';
export const OCTETS = 'application/octet-stream';

/** The vendor media type of a resource: `vendorType('common', 'location')`. */
export const vendorType = (module: string, resource: string, version = 1) => `application/vnd.vendor.${module}.${resource}-v${version}+json`;

/** `Accept` → media types in the client's order (highest q first), parameters stripped; q=0 dropped. */
export function parseAccept(header: string | undefined): string[] {
  if (!header) return [];
  const entries: { type: string; q: number; order: number }[] = [];
  header.split(',').forEach((part, order) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!type) return;
    let q = 1;
    for (const p of params) if (p.startsWith('q=')) q = Number(p.slice(2)) || 0;
    if (q > 0) entries.push({ type, q, order });
  });
  entries.sort((a, b) => b.q - a.q || a.order - b.order);
  return entries.map((e) => e.type);
}

/** The request body's media type, lower case, parameters stripped. */
export function mediaTypeOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return header.split(';')[0]!.trim().toLowerCase() || undefined;
}

/** What a route takes as body, defaulted as the server reads it: `json` for POST, PUT and PATCH, `none` for GET and DELETE. */
export function bodyKinds(route: Route): readonly BodyKind[] {
  if (route.body) return typeof route.body === 'string' ? [route.body] : route.body;
  return route.method === 'GET' || route.method === 'DELETE' ? ['none'] : ['json'];
}

/**
 * The media types a route takes a body of this kind as, the ones the API description
 * lists: JSON as application/json, application/hal+json or one of the route's vendor
 * types (the same JSON); a form; bytes as application/octet-stream or any image type.
 */
export function requestTypes(route: Route, kind: BodyKind): string[] {
  if (kind === 'json') return [JSON_TYPE, HAL_JSON, ...(route.vendorTypes ?? [])];
  if (kind === 'form') return [FORM];
  if (kind === 'octets') return [OCTETS, 'image/*'];
  return [];
}

/** Whether a request body sent as `contentType` is one the route takes as `kind`; a JSON body may come without a type. */
export function takesBodyAs(route: Route, kind: BodyKind, contentType: string | undefined): boolean {
  if (contentType === undefined) return kind === 'json';
  return requestTypes(route, kind).some((type) => (type.endsWith('/*') ? contentType.startsWith(type.slice(0, -1)) : contentType === type));
}

export type Representation = 'json' | 'xml';

/**
 * Decides, before the handler runs, whether we can answer this `Accept` at all.
 * Returns the representation, or `undefined` for 406.
 */
export function acceptable(route: Route, accept: readonly string[]): Representation | undefined {
  // An event stream has one form, and browsers' EventSource sends `text/event-stream`;
  // whatever else a client asks, the stream is what it gets (errors stay JSON).
  if (accept.length === 0 || route.eventStream) return 'json';
  for (const type of accept) {
    if (type === XML || type === 'text/xml') {
      if (route.index) return 'xml';
      continue;
    }
    if (type === '*/*' || type === 'application/*' || type === HAL_JSON || type === JSON_TYPE) return 'json';
    // A vendor type only where the route answers it (and then as it: jsonContentType);
    // another resource's vendor type is not offered here, whatever JSON it would carry.
    if (route.vendorTypes?.includes(type)) return 'json';
    // A route that answers another type (a page, the metrics text, an image) answers a
    // client that asks for just that type; its errors stay JSON.
    if (route.replyType && answersType(route.replyType, type)) return 'json';
  }
  return undefined;
}

/** Whether a reply of `replyType` (`image/*` for any image) is what `asked` (`text/html`, `text/*`) names. */
function answersType(replyType: string, asked: string): boolean {
  const [kind, sub] = mediaTypeOf(replyType)!.split('/') as [string, string];
  const [askedKind, askedSub] = asked.split('/') as [string, string | undefined];
  if (askedKind !== kind) return false;
  return askedSub === '*' || sub === '*' || askedSub === sub;
}

/** The content type of a JSON reply for this `Accept`. */
export function jsonContentType(route: Route, accept: readonly string[], body: unknown): string {
  for (const type of accept) {
    if (type === HAL_JSON || type === JSON_TYPE) return type;
    if (route.vendorTypes?.includes(type)) return type;
    if (type === '*/*' || type === 'application/*') break;
  }
  return Array.isArray(body) ? JSON_TYPE : HAL_JSON;
}

/**
 * An index body (`{_links: {name: {href, templated?}}}`) as XML, Atom links as Spring
 * HATEOAS writes them; a URI template carries `templated="true"`, as in JSON.
 */
export function indexToXml(body: IndexBody): string {
  const links = Object.entries(body._links)
    .map(([rel, { href, templated }]) => `  <atom:link rel="${escapeXml(rel)}" href="${escapeXml(href)}"${templated ? ' templated="true"' : ''}/>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<index xmlns:atom="http://www.w3.org/2005/Atom">\n${links}\n</index>\n`;
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
