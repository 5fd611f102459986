import { z } from 'zod';
import type { Route } from '../../http/router.ts';
import { apiKeyRoutes } from './api-keys/routes.ts';
import { grantRoutes } from './grants/routes.ts';
import { roleRoutes } from './roles/routes.ts';
import type { UsersModule } from './service.ts';
import { userRoutes } from './users/routes.ts';
import { TokenSchema } from './openapi.ts';

/** Entry-index links of the user administration (the API conventions (README, "API")), plus API keys. */
export const usersIndexLinks = {
  'user-index': '/users/index',
  'role-index': '/roles/index',
  'grant-index': '/grants/index',
  'api-key-index': '/api-keys/index',
};

const tokenRequest = z.object({
  grant_type: z.literal('password', { error: 'only grant_type=password is supported' }),
  username: z.string().min(1),
  password: z.string().min(1),
});

export function usersRoutes(module: UsersModule): Route[] {
  return [
    {
      method: 'POST',
      path: '/oauth/token',
      grant: 'public',
      body: ['form', 'json'],
      requestSchema: tokenRequest,
      responseSchema: TokenSchema,
      serverDeclined: [401, 429],
      summary: 'Obtain an access token with username and password (grant_type=password).',
      handler: async (ctx) => {
        const request = ctx.body(tokenRequest);
        const token = await module.login(request.username, request.password, ctx.clientAddress);
        return { status: 200, body: token, type: 'application/json', headers: { 'Cache-Control': 'no-store' } };
      },
    },
    ...userRoutes(module),
    ...roleRoutes(module),
    ...grantRoutes(module),
    ...apiKeyRoutes(module),
  ];
}
