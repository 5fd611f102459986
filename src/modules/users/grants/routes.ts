import { z } from 'zod';
import { created, indexRoute, noContent, ok } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import type { UsersModule } from '../service.ts';
import { grantVO } from '../representation.ts';
import { grantUpdate, newGrant } from '../schema.ts';
import { GrantSchema } from '../openapi.ts';
import { listQuery, listReply } from '../../../http/lists.ts';

const TYPE = vendorType('uaa', 'grant');
const READ = 'grants:read';
const WRITE = 'grants:write';

export function grantRoutes(module: UsersModule): Route[] {
  const { grants } = module;
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/grants/{pKey}',
      grant: READ,
      link: 'grants-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: GrantSchema,
      summary: 'A grant by its persistent key.',
      handler: (ctx) => ok(grantVO(ctx, grants.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: '/grants',
      query: ['name'],
      grant: READ,
      link: 'grants-findbyname',
      vendorTypes: [TYPE],
      responseSchema: GrantSchema,
      summary: 'A grant by its name.',
      handler: (ctx) => ok(grantVO(ctx, grants.byName(ctx.queryValue('name')))),
    },
    {
      method: 'GET',
      path: '/grants',
      grant: READ,
      link: 'grants-findall',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(GrantSchema),
      summary: "All grants by name: those the appliance's operations need and those created for other uses.",
      handler: (ctx) => listReply(ctx, grants.list(), (g) => grantVO(ctx, g)),
    },
    {
      method: 'POST',
      path: '/grants',
      grant: WRITE,
      link: 'grants-create',
      vendorTypes: [TYPE],
      requestSchema: newGrant,
      responseSchema: GrantSchema,
      status: 201,
      errors: [409],
      summary: 'Create a grant (for HMI pages or external systems that check grants of their own).',
      handler: (ctx) => {
        const grant = grants.create(ctx.body(newGrant));
        return created(ctx, `/grants/${grant.pk}`, grantVO(ctx, grant));
      },
    },
    {
      method: 'PUT',
      path: '/grants',
      grant: WRITE,
      link: 'grants-save',
      vendorTypes: [TYPE],
      requestSchema: grantUpdate,
      responseSchema: GrantSchema,
      errors: [403, 404, 409],
      summary: 'Change a grant named by pKey in the body; grants the appliance needs keep their name.',
      handler: (ctx) => {
        const body = ctx.body(grantUpdate);
        return ok(grantVO(ctx, grants.update(body.pKey, body)));
      },
    },
    {
      method: 'DELETE',
      path: '/grants/{pKey}',
      grant: WRITE,
      link: 'grants-delete',
      status: 204,
      errors: [403, 409],
      summary: 'Delete a grant the appliance does not need; roles lose it.',
      handler: (ctx) => {
        grants.delete(ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute('/grants/index', READ, routes, 'Links of the grant operations.'), ...routes];
}
