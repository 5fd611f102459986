import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import { readTls } from '../http/lifecycle.ts';
import { createHttpServer, type HttpOptions } from '../http/server.ts';
import type { Assembly } from '../modules/assemble.ts';

/**
 * The HTTP server over an assembly's route table, its callers resolved by the users
 * module and its streams' tickets redeemed by the events module: on the HTTP thread, or
 * on the one thread with `server.httpThread: false`. `place` says where handlers run.
 */
export function createEdgeServer(app: Assembly, config: Config, log: Logger, place: Pick<HttpOptions, 'commits' | 'forward' | 'standby'>) {
  const users = app.module('users');
  const { tickets } = app.module('events');
  return createHttpServer({
    router: app.router,
    authenticate: (authorization) => users.authenticate(authorization),
    redeemTicket: (ticket) => users.currentPrincipalOrRefuse(tickets.redeem(ticket)),
    log,
    bodyLimitBytes: config.server.bodyLimitBytes,
    corsOrigins: config.server.corsOrigins,
    publicUrl: config.server.publicUrl,
    messageKeys: config.api.messageKeys,
    requestTimeoutMs: config.server.requestTimeoutMs,
    metrics: app.module('system').http,
    tls: readTls(config.server.tls),
    ...place,
  });
}
