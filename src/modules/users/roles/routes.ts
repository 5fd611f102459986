import { z } from 'zod';
import { created, indexRoute, noContent, ok } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { RequestContext } from '../../../http/context.ts';
import type { Route } from '../../../http/router.ts';
import type { UsersModule } from '../service.ts';
import { roleVO } from '../representation.ts';
import { newRole, roleUpdate } from '../schema.ts';
import { RoleSchema } from '../openapi.ts';
import type { Role } from './store.ts';
import { listQuery, listReply } from '../../../http/lists.ts';

const TYPE = vendorType('uaa', 'role');
const READ = 'roles:read';
const WRITE = 'roles:write';

export function roleRoutes(module: UsersModule): Route[] {
  const { roles } = module;
  const vo = (ctx: RequestContext, r: Role) => roleVO(ctx, r, ...module.roleMembers(r));
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/roles/{pKey}',
      grant: READ,
      link: 'roles-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: RoleSchema,
      summary: 'A role by its persistent key, with its users and grants.',
      handler: (ctx) => ok(vo(ctx, roles.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: '/roles',
      query: ['name'],
      grant: READ,
      link: 'roles-findbyname',
      vendorTypes: [TYPE],
      responseSchema: RoleSchema,
      summary: 'A role by its name.',
      handler: (ctx) => ok(vo(ctx, roles.byName(ctx.queryValue('name')))),
    },
    {
      method: 'GET',
      path: '/roles',
      grant: READ,
      link: 'roles-findall',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(RoleSchema),
      summary: 'All roles, by name.',
      handler: (ctx) => listReply(ctx, roles.list(), (r) => vo(ctx, r)),
    },
    {
      method: 'POST',
      path: '/roles',
      grant: WRITE,
      link: 'roles-create',
      vendorTypes: [TYPE],
      requestSchema: newRole,
      responseSchema: RoleSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Create a role, optionally with grants and users (by name).',
      handler: (ctx) => {
        const role = roles.create(ctx.body(newRole));
        return created(ctx, `/roles/${role.pk}`, vo(ctx, role));
      },
    },
    {
      method: 'PUT',
      path: '/roles',
      grant: WRITE,
      link: 'roles-save',
      vendorTypes: [TYPE],
      requestSchema: roleUpdate,
      responseSchema: RoleSchema,
      errors: [403, 404, 409],
      summary: 'Change a role named by pKey in the body; grants and users are replaced when given. Immutable roles: 403.',
      handler: (ctx) => {
        const body = ctx.body(roleUpdate);
        return ok(vo(ctx, roles.update(body.pKey, body)));
      },
    },
    {
      method: 'DELETE',
      path: '/roles/{pKey}',
      grant: WRITE,
      link: 'roles-delete',
      status: 204,
      errors: [403, 409],
      summary: 'Delete a role (not an immutable one, not one that API keys name, revoked ones included: they stay listed).',
      handler: (ctx) => {
        roles.delete(ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute('/roles/index', READ, routes, 'Links of the role operations.'), ...routes];
}
