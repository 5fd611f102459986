import { z } from 'zod';
import type { RequestContext } from '../http/context.ts';
import { ServerDeclined } from '../http/errors.ts';
import { AUTHENTICATED, type Reply, type Route } from '../http/router.ts';
import { chooseEncoding, etagOf, hmiAssets, notModified } from './assets.ts';

// The operators' HMI (docs/hmi.md), served by the appliance itself under /hmi/:
//
//   GET /hmi/             the page (index.html), revalidated on every load (ETag)
//   GET /hmi/{asset}      its scripts, styles and icon: content-hashed names, cached for a year
//   GET /hmi/session      who the caller of a token is and which grants it holds
//   GET /                 a browser (Accept: text/html) is sent to /hmi/; other clients keep the 404
//
// The files need no grant: logging in happens in the page. Every file is answered in
// the smallest encoding the browser takes (brotli, gzip, as built), with a
// Content-Security-Policy that lets the page load and connect to nothing but the
// appliance itself.

/** Nothing from anywhere else: no CDN, no inline script or style, no frames around it. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** The server's CORS `Vary`, and the encoding each file is answered in. */
const VARY = 'Origin, Accept-Encoding';

const SessionSchema = z
  .object({
    username: z.string(),
    kind: z.enum(['user', 'api-key']),
    roleNames: z.array(z.string()),
    grants: z.array(z.string()).meta({ description: 'The grants the caller holds now, sorted.' }),
  })
  .meta({ id: 'HmiSession', description: 'The caller of the token, as the HMI shows it and decides which actions to offer.' });

async function serveAsset(ctx: RequestContext, name: string): Promise<Reply> {
  const asset = (await hmiAssets()).get(name);
  if (!asset) throw new ServerDeclined(404, `No resource at ${ctx.path}`);
  const encoding = chooseEncoding(headerOf(ctx, 'accept-encoding'), asset);
  const headers: Record<string, string> = {
    ...PAGE_HEADERS,
    'Cache-Control': asset.immutable ? IMMUTABLE : REVALIDATE,
    ETag: etagOf(asset, encoding),
    Vary: VARY,
  };
  if (notModified(headerOf(ctx, 'if-none-match'), asset)) return { status: 304, headers };
  if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
  const body = encoding === 'br' ? asset.br! : encoding === 'gzip' ? asset.gzip! : asset.identity;
  return { status: 200, raw: body, type: asset.type, headers };
}

const headerOf = (ctx: RequestContext, name: string) => {
  const value = ctx.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** A browser navigating asks for text/html; API clients ask for JSON or nothing. */
const wantsHtml = (ctx: RequestContext) => ctx.accept.includes('text/html');

/** `/` for browsers: the HMI. API clients keep the answer `/` always gave. */
const rootRoute: Route = {
  method: 'GET',
  path: '/',
  grant: 'public',
  replyType: 'text/html',
  status: 302,
  responseSchema: null,
  serverDeclined: [404],
  summary: 'A browser (Accept: text/html) is redirected to the HMI at /hmi/; other clients get 404.',
  handler: (ctx) => {
    if (!wantsHtml(ctx)) throw new ServerDeclined(404, 'No resource at /');
    return { status: 302, headers: { Location: `${ctx.baseUrl}/hmi/` } };
  },
};

export function hmiRoutes(): Route[] {
  return [
    rootRoute,
    {
      method: 'GET',
      path: '/hmi',
      grant: 'public',
      replyType: 'text/html',
      status: [200, 304],
      summary: 'The HMI page (index.html); /hmi is redirected to /hmi/, as the page names its files relative to it.',
      handler: (ctx) => {
        if (!ctx.path.endsWith('/')) {
          const query = ctx.query.toString();
          return { status: 301, headers: { Location: `${ctx.baseUrl}/hmi/${query ? `?${query}` : ''}` } };
        }
        return serveAsset(ctx, 'index.html');
      },
    },
    {
      method: 'GET',
      path: '/hmi/{asset}',
      grant: 'public',
      replyType: 'application/octet-stream',
      status: [200, 304],
      serverDeclined: [404],
      summary: 'A file of the HMI (script, style sheet, icon) by its content-hashed name, cached for a year; brotli or gzip as Accept-Encoding allows.',
      handler: (ctx) => serveAsset(ctx, ctx.param('asset')),
    },
    {
      // No particular grant: any valid token may ask who it is.
      method: 'GET',
      path: '/hmi/session',
      grant: AUTHENTICATED,
      responseSchema: SessionSchema,
      summary: 'The caller of the bearer token (needed, whatever its grants): name, roles and grants, for the HMI to offer only allowed actions.',
      handler: (ctx) => {
        const principal = ctx.caller;
        return {
          status: 200,
          type: 'application/json',
          body: { username: principal.username, kind: principal.kind, roleNames: [...principal.roleNames], grants: [...principal.grants].sort() },
        };
      },
    },
  ];
}
