import { indexRoute, link, ok, technical } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { RequestContext } from '../../../http/context.ts';
import { validationError } from '../../../core/errors.ts';
import type { Route } from '../../../http/router.ts';
import type { AccountService } from './service.ts';
import type { Account } from './store.ts';
import { z } from 'zod';
import { AccountSchema } from '../openapi.ts';
import { listQuery, listReply } from '../../../http/lists.ts';

const TYPE = vendorType('common', 'account');
const READ = 'accounts:read';
const BASE = '/v1/accounts';

const accountVO = (ctx: RequestContext, a: Account) => ({
  ...technical(a, [link(ctx, 'accounts-findbypkey', `${BASE}/${a.pk}`)]),
  identifier: a.identifier,
  name: a.name,
});

export function accountRoutes(accounts: AccountService): Route[] {
  const routes: Route[] = [
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'accounts-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: AccountSchema,
      summary: 'An account by its persistent key.',
      handler: (ctx) => ok(accountVO(ctx, accounts.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['identifier'],
      grant: READ,
      link: 'accounts-findbyidentifier',
      vendorTypes: [TYPE],
      responseSchema: AccountSchema,
      summary: 'An account by its identifier.',
      handler: (ctx) => ok(accountVO(ctx, accounts.byIdentifier(ctx.queryValue('identifier')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['name'],
      grant: READ,
      link: 'accounts-findbyname',
      vendorTypes: [TYPE],
      responseSchema: AccountSchema,
      summary: 'An account by its name.',
      handler: (ctx) => ok(accountVO(ctx, accounts.byName(ctx.queryValue('name')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['default'],
      grant: READ,
      link: 'accounts-finddefault',
      linkHref: `${BASE}?default=true`,
      vendorTypes: [TYPE],
      querySchema: z.object({ default: z.literal('true') }),
      responseSchema: AccountSchema,
      summary: 'The default account, used when a request names none.',
      handler: (ctx) => {
        if (ctx.queryValue('default') !== 'true') throw validationError('Validation failed: query parameter default must be true');
        return ok(accountVO(ctx, accounts.defaultAccount()));
      },
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'accounts-findall',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(AccountSchema),
      summary: 'All accounts, by identifier.',
      handler: (ctx) => listReply(ctx, accounts.list(), (a) => accountVO(ctx, a)),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the account operations.'), ...routes];
}
