import { z } from 'zod';
import { created, indexRoute, noContent, ok } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import type { UsersModule } from '../service.ts';
import { apiKeyVO } from '../representation.ts';
import { newApiKey } from '../schema.ts';
import { ApiKeySchema, NewApiKeySchema } from '../openapi.ts';
import { listQuery, listReply } from '../../../http/lists.ts';

const TYPE = vendorType('uaa', 'api-key');
const READ = 'api-keys:read';
const WRITE = 'api-keys:write';

export function apiKeyRoutes(module: UsersModule): Route[] {
  const { apiKeys } = module;
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/api-keys/{pKey}',
      grant: READ,
      link: 'api-keys-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: ApiKeySchema,
      summary: 'An API key (never its secret).',
      handler: (ctx) => ok(apiKeyVO(ctx, apiKeys.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: '/api-keys',
      grant: READ,
      link: 'api-keys-findall',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(ApiKeySchema),
      summary: 'All API keys by name, revoked ones included.',
      handler: (ctx) => listReply(ctx, apiKeys.list(), (k) => apiKeyVO(ctx, k)),
    },
    {
      method: 'POST',
      path: '/api-keys',
      grant: WRITE,
      link: 'api-keys-create',
      vendorTypes: [TYPE],
      requestSchema: newApiKey,
      responseSchema: NewApiKeySchema,
      status: 201,
      errors: [404, 409],
      summary: "Create an API key acting with the grants of a role; the reply's `key` is shown this once.",
      handler: (ctx) => {
        const { apiKey, key } = apiKeys.create(ctx.body(newApiKey), ctx.caller.username);
        return created(ctx, `/api-keys/${apiKey.pk}`, { ...apiKeyVO(ctx, apiKey), key });
      },
    },
    {
      method: 'DELETE',
      path: '/api-keys/{pKey}',
      grant: WRITE,
      link: 'api-keys-revoke',
      status: 204,
      errors: [409],
      summary: 'Revoke an API key: it stops working at once and stays listed with revokedAt.',
      handler: (ctx) => {
        apiKeys.revoke(ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute('/api-keys/index', READ, routes, 'Links of the API key operations.'), ...routes];
}
