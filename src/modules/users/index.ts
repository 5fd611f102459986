import { grantCatalogue } from '../../auth/grants.ts';
import { TokenService } from '../../auth/tokens.ts';
import type { ModuleDefinition } from '../module.ts';
import { forgetInitialPasswordOnChange, writeInitialPassword } from './initial-password.ts';
import { usersIndexLinks, usersRoutes } from './routes.ts';
import { createUsersModule, type UsersModule } from './service.ts';

/** Users, roles, grants and API keys; the token endpoint; who a request is. */
export const users: ModuleDefinition<'users', UsersModule> = {
  name: 'users',
  create: async ({ db, work, log, config, dataDir, options, routes, conveyor }) => {
    const tokens = await TokenService.open(db, { issuer: config.auth.issuer, ttlSeconds: config.auth.tokenTtlSeconds });
    const service = createUsersModule(db, work, tokens, log, {
      imageMaxBytes: config.users.imageMaxBytes,
      passwordHashCost: config.auth.passwordHashCost,
      lockoutMinutes: config.auth.lockoutMinutes,
      loginAttemptsPerMinute: config.auth.loginAttemptsPerMinute,
      recordKeyUse: conveyor && ((pk, at) => conveyor.apiKeyUsed(pk, at)),
    });
    return {
      service,
      routes: usersRoutes(service),
      indexLinks: usersIndexLinks,
      // The grants roles choose from are those the routes name: known once every module is created.
      prepare: async () => {
        const seeded = await service.seed(grantCatalogue(routes()), config.auth.adminPassword, options.resetAdmin);
        if (seeded.adminReset) {
          log.warn({ username: 'admin' }, 'user admin restored from the command line: unlocked, enabled, role ADMIN, new password');
        } else if (seeded.generatedPassword) {
          const file = writeInitialPassword(dataDir, seeded.generatedPassword);
          log.warn(
            { username: 'admin', file },
            `first start: generated the password of user admin and wrote it to ${file} (readable by this user only); log in, change it, and the file is removed`,
          );
        } else if (seeded.adminCreated) {
          log.info({ username: 'admin' }, 'first start: user admin created with the password from WMS_ADMIN_PASSWORD');
        }
        forgetInitialPasswordOnChange(dataDir, work.bus, log);
      },
    };
  },
};
