import { z } from 'zod';
import { created, indexRoute, noContent, ok } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import type { UsersModule } from '../service.ts';
import { grantVO, roleVO, userVO } from '../representation.ts';
import { newUser, passwordChange, userUpdate } from '../schema.ts';
import { GrantSchema, RoleSchema, UserSchema } from '../openapi.ts';
import { listQuery, listReply } from '../../../http/lists.ts';

const TYPE = vendorType('uaa', 'user');
const READ = 'users:read';
const WRITE = 'users:write';

export function userRoutes(module: UsersModule): Route[] {
  const { users } = module;
  const saveImage = (method: 'POST' | 'PATCH', link?: string): Route => ({
    method,
    path: '/users/{pKey}/details/image',
    grant: WRITE,
    body: 'octets',
    vendorTypes: [TYPE],
    ...(link ? { link } : {}),
    responseSchema: UserSchema,
    errors: [413],
    summary: "Store the user's image (raw PNG, JPEG, GIF or WebP bytes, application/octet-stream); answers the user.",
    handler: (ctx) => ok(userVO(ctx, users.saveImage(ctx.param('pKey'), ctx.bytes()))),
  });
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/users/{pKey}',
      grant: READ,
      link: 'users-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: UserSchema,
      summary: 'A user by its persistent key.',
      handler: (ctx) => ok(userVO(ctx, users.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: '/users',
      grant: READ,
      link: 'users-findall',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(UserSchema),
      summary: 'All users by name (200 with an empty array when there are none).',
      handler: (ctx) => listReply(ctx, users.list(), (u) => userVO(ctx, u)),
    },
    {
      method: 'GET',
      path: '/users/{pKey}/grants',
      grant: READ,
      link: 'users-findgrants',
      querySchema: listQuery,
      responseSchema: z.array(GrantSchema),
      summary: "The effective grants of a user, by name: the union of its roles' grants.",
      handler: (ctx) => listReply(ctx, module.grants.ofUser(users.byPKey(ctx.param('pKey')).pk), (g) => grantVO(ctx, g)),
    },
    {
      method: 'GET',
      path: '/users/{pKey}/roles',
      grant: READ,
      link: 'users-findroles',
      vendorTypes: [vendorType('uaa', 'role')],
      querySchema: listQuery,
      responseSchema: z.array(RoleSchema),
      summary: 'The roles of a user, by name.',
      handler: (ctx) => listReply(ctx, module.roles.ofUser(users.byPKey(ctx.param('pKey')).pk), (r) => roleVO(ctx, r, ...module.roleMembers(r))),
    },
    {
      method: 'POST',
      path: '/users',
      grant: WRITE,
      link: 'users-create',
      vendorTypes: [TYPE],
      requestSchema: newUser,
      responseSchema: UserSchema,
      status: 201,
      errors: [409],
      summary: 'Create a user (externalUser false, locked false, enabled true, no roles unless given).',
      handler: async (ctx) => {
        const user = await users.create(ctx.body(newUser));
        return created(ctx, `/users/${user.pk}/`, userVO(ctx, user));
      },
    },
    {
      method: 'PUT',
      path: '/users',
      grant: WRITE,
      link: 'users-save',
      vendorTypes: [TYPE],
      requestSchema: userUpdate,
      responseSchema: UserSchema,
      errors: [404, 409],
      summary: 'Change a user named by pKey in the body; fields left out keep their values.',
      handler: (ctx) => {
        const body = ctx.body(userUpdate);
        return ok(userVO(ctx, users.update(body.pKey, body)));
      },
    },
    {
      method: 'POST',
      path: '/users/{pKey}/password',
      grant: WRITE,
      link: 'users-change-password',
      vendorTypes: [TYPE],
      requestSchema: passwordChange,
      responseSchema: UserSchema,
      summary: "Set a user's password (at least 8 characters); answers the user with lastPasswordChange.",
      handler: async (ctx) => ok(userVO(ctx, await users.setPassword(ctx.param('pKey'), ctx.body(passwordChange).password))),
    },
    saveImage('POST', 'users-saveimage'),
    saveImage('PATCH'),
    {
      method: 'GET',
      path: '/users/{pKey}/details/image',
      grant: READ,
      link: 'users-findimage',
      replyType: 'image/*',
      summary: "The user's image, as stored.",
      handler: (ctx) => {
        const image = users.image(ctx.param('pKey'));
        return { status: 200, raw: image.bytes, type: image.contentType };
      },
    },
    {
      method: 'DELETE',
      path: '/users/{pKey}/details/image',
      grant: WRITE,
      link: 'users-deleteimage',
      status: 204,
      summary: "Remove the user's image.",
      handler: (ctx) => {
        users.deleteImage(ctx.param('pKey'));
        return noContent();
      },
    },
    {
      method: 'DELETE',
      path: '/users/{pKey}',
      grant: WRITE,
      link: 'users-delete',
      status: 204,
      errors: [409],
      summary: 'Delete a user (not the last enabled administrator).',
      handler: (ctx) => {
        users.delete(ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute('/users/index', READ, routes, 'Links of the user operations.'), ...routes];
}
