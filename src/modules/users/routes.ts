import { z } from 'zod';
import type { Route } from '../../http/router.ts';
import type { UserService } from './service.ts';

// The token endpoint (OAuth 2 password grant). User, role and grant administration
// join this table as the users module grows.

const tokenRequest = z.object({
  grant_type: z.literal('password', { error: 'only grant_type=password is supported' }),
  username: z.string().min(1),
  password: z.string().min(1),
});

export function userRoutes(users: UserService): Route[] {
  return [
    {
      method: 'POST',
      path: '/oauth/token',
      grant: 'public',
      body: ['form', 'json'],
      summary: 'Obtain an access token with username and password (grant_type=password).',
      handler: async (ctx) => {
        const request = ctx.body(tokenRequest);
        const token = await users.login(request.username, request.password);
        return { status: 200, body: token, type: 'application/json', headers: { 'Cache-Control': 'no-store' } };
      },
    },
  ];
}
