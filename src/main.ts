import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { migrations } from '../db/migrations/index.ts';
import { createAdapter, type PlcAdapter } from '../plc/adapter.ts';
import { PlcChannels } from '../plc/channels.ts';
import type { ChannelDirectory, TelegramHandler } from '../plc/osip/port.ts';
import { createOsipHandler } from '../plc/osip/warehouse/handler.ts';
import { plcModule } from '../plc/routes.ts';
import { SignalLog } from '../plc/signals/log.ts';
import { TelegramLog } from '../plc/telegram-log.ts';
import { TokenService } from './auth/tokens.ts';
import type { Config } from './config.ts';
import { openDatabase, type Db } from './core/db.ts';
import { EventLog } from './core/event-log.ts';
import type { EventBus } from './core/events.ts';
import { createLogger, type Logger } from './core/log.ts';
import { StartupError, migrate } from './core/migrations.ts';
import { prepareDataDir } from './core/data-dir.ts';
import { LogStore, logsFileOf } from './core/log-store/index.ts';
import { sqliteBinding, sqliteBindingFile } from './core/native.ts';
import { ReadPool } from './core/read-pool.ts';
import { Retention } from './core/retention.ts';
import { UnitOfWork } from './core/unit-of-work.ts';
import { grantCatalogue } from './auth/grants.ts';
import { grantsOf, Router, type Route } from './http/router.ts';
import type { Principal } from './http/context.ts';
import { Metrics } from './http/metrics.ts';
import { createHttpServer } from './http/server.ts';
import { invoke } from './http/invoke.ts';
import { Federation, federationModule } from './federation/index.ts';
import { hmiModule } from './hmi/routes.ts';
import { alarmsModule } from './modules/alarms/routes.ts';
import { createAlarmService, type AlarmService } from './modules/alarms/service.ts';
import { createAlarmStore } from './modules/alarms/store.ts';
import { backupsModule } from './modules/backups/routes.ts';
import { commonModule } from './modules/common/routes.ts';
import { createCommonServices, type CommonServices } from './modules/common/service.ts';
import { createHistory } from './modules/events/history.ts';
import { eventsModule } from './modules/events/routes.ts';
import { LiveStreams } from './modules/events/streams.ts';
import { EventTickets } from './modules/events/tickets.ts';
import { inventoryModule } from './modules/inventory/routes.ts';
import { createInventory, type InventoryServices } from './modules/inventory/service.ts';
import type { ModuleDescriptor } from './modules/module.ts';
import { movementsModule } from './modules/movements/routes.ts';
import { createMovementService } from './modules/movements/service.ts';
import { createMovementStore } from './modules/movements/store.ts';
import { preferencesModule } from './modules/preferences/routes.ts';
import { createPreferenceService } from './modules/preferences/service.ts';
import { createPreferenceStore } from './modules/preferences/store.ts';
import { receivingModule } from './modules/receiving/routes.ts';
import { createReceivingService } from './modules/receiving/service.ts';
import { createReceivingStore } from './modules/receiving/store.ts';
import { routingModule } from './modules/routing/routes.ts';
import { createRoutingService, type RoutingService } from './modules/routing/service.ts';
import { createRoutingStore } from './modules/routing/store.ts';
import { shippingModule } from './modules/shipping/routes.ts';
import { createShippingService } from './modules/shipping/service.ts';
import { createShippingStore } from './modules/shipping/store.ts';
import { systemRoutes } from './modules/system/routes.ts';
import { tasksModule } from './modules/tasks/routes.ts';
import { createTaskService } from './modules/tasks/service.ts';
import { createTaskStore } from './modules/tasks/store.ts';
import { transportOrdersModule } from './modules/transport-orders/routes.ts';
import { createTransportOrderService, type TransportOrderService } from './modules/transport-orders/service.ts';
import { createTransportOrderStore } from './modules/transport-orders/store.ts';
import { usersModule } from './modules/users/routes.ts';
import { createUsersModule, type UsersModule } from './modules/users/service.ts';
import { VERSION } from './version.ts';

// Composition root: config → database → migrations → unit of work → services → the
// list of module descriptors → HTTP → modules started (the PLC channels last).

/** What the PLC adapter is built from. */
export interface PlcHandlerDeps {
  work: UnitOfWork;
  log: Logger;
  common: CommonServices;
  routing: RoutingService;
  transportOrders: TransportOrderService;
  /** For unsolicited telegrams (move orders) to the owning PLC. */
  channels: ChannelDirectory;
  /** The adapter the signal channels use too: one for all protocols. */
  adapter: PlcAdapter;
}

/** Builds the channels' telegram handler; `close` (if any) is called when the appliance stops. */
export type PlcHandlerFactory = (deps: PlcHandlerDeps) => TelegramHandler & { close?(): void };

/**
 * The telegram handler of the PLC channels: OSIP telegrams (plc/osip/warehouse/) mapped
 * onto the adapter's warehouse operations (plc/adapter.ts) over the module services.
 */
const plcHandler: PlcHandlerFactory = ({ channels, log, adapter }) => createOsipHandler({ adapter, log, channels });

export interface StartOptions {
  /** Where log lines go (tests read them); stdout when absent. */
  logDestination?: NodeJS.WritableStream;
  /** Restore the user admin with `auth.adminPassword` (the recovery path of `--reset-admin`). */
  resetAdmin?: boolean;
  /** Notes from loading the config, logged once the logger exists. */
  configNotes?: string[];
  /** The PLC channels' telegram handler (tests); default: the adapter. */
  plcHandler?: PlcHandlerFactory;
}

export interface Appliance {
  config: Config;
  /** `http://host:port` of the listening server. */
  url: string;
  port: number;
  db: Db;
  log: Logger;
  /** The one transaction runner; `work.bus` hands out committed events. */
  work: UnitOfWork;
  bus: EventBus;
  events: EventLog;
  users: UsersModule;
  common: CommonServices;
  inventory: InventoryServices;
  routing: RoutingService;
  transportOrders: TransportOrderService;
  alarms: AlarmService;
  /** The PLC channels (started once the HTTP server listens). */
  plc: PlcChannels;
  telegramLog: TelegramLog;
  /** Prunes the event log, the telegram log and cleared alarms. */
  retention: Retention;
  /** Event streams open now. */
  streams: LiveStreams;
  routes: readonly Route[];
  close(): Promise<void>;
}

export async function startAppliance(config: Config, options: StartOptions = {}): Promise<Appliance> {
  const startedAt = Date.now();
  const log = createLogger({ level: config.log.level, ...(options.logDestination ? { destination: options.logDestination } : {}) });
  for (const note of options.configNotes ?? []) log.warn(note);

  const dataDir = path.resolve(config.storage.dataDir);
  prepareDataDir(dataDir, log);
  const file = path.join(dataDir, config.storage.file);
  const nativeBinding = sqliteBinding(dataDir);
  const db = openDatabase({ file, busyTimeoutMs: config.storage.busyTimeoutMs, nativeBinding });
  let logStore: LogStore | undefined;
  try {
    migrate(db, migrations, { backupDir: path.join(dataDir, 'backups'), backupsToKeep: config.storage.backupsToKeep, log });

    // Every change from here on runs through the unit of work and leaves its events in the log.
    // The telegram log and the index of what each event is about: a database and a thread of their own.
    logStore = await LogStore.open({ file: logsFileOf(file), nativeBinding, workerBinding: sqliteBindingFile(dataDir), log });
    const logs = logStore;
    const events = new EventLog(db, logs);
    const reindexed = await events.recoverIndex();
    if (reindexed > 0) log.info({ events: reindexed }, 'event history index caught up with the events it did not have');
    const work = new UnitOfWork(db, events, (err, event) => log.error({ err, event: event.type, id: event.id }, 'event subscriber failed'));
    const tokens = await TokenService.open(db, { issuer: config.auth.issuer, ttlSeconds: config.auth.tokenTtlSeconds });
    const users = createUsersModule(db, work, tokens, log, {
      imageMaxBytes: config.users.imageMaxBytes,
      lockoutMinutes: config.auth.lockoutMinutes,
      loginAttemptsPerMinute: config.auth.loginAttemptsPerMinute,
    });
    // Read connections for lists and exports too long to read on the writer's connection.
    const reads = new ReadPool({ file, size: READ_CONNECTIONS, nativeBinding });
    const common = createCommonServices(db, work, reads);
    const inventory = createInventory({ db, reads, work, common, options: config.inventory });
    const preferences = createPreferenceService(work, createPreferenceStore(db, reads));
    const tasks = createTaskService({ work, store: createTaskStore(db, reads), types: config.tasks.types });
    const movements = createMovementService({ work, store: createMovementStore(db, reads), common });
    const shipping = createShippingService({ work, store: createShippingStore(db, reads), products: inventory.products, common });
    const receiving = createReceivingService({ work, store: createReceivingStore(db, reads), inventory, common });
    const transportOrders = createTransportOrderService({ work, store: createTransportOrderStore(db, reads), common });
    const routing = createRoutingService({ work, store: createRoutingStore(db, reads), common, orders: transportOrders });

    const telegramLog = new TelegramLog(logs);
    const plc = new PlcChannels(config.plc, log, { work, telegramLog, signalLog: new SignalLog(logs), dataDir });
    const alarms = createAlarmService({
      work,
      store: createAlarmStore(db),
      log,
      options: { ...config.alarms, dataDir },
      groupAvailable: (name) => {
        const group = common.locationGroups.byNames([name])[0];
        return !!group && group.groupStateIn === 'AVAILABLE' && group.groupStateOut === 'AVAILABLE';
      },
      channels: () => plc.states(),
    });
    const streams = new LiveStreams(events, reads, work.bus, users.currentPrincipal, log);
    const tickets = new EventTickets();
    const retention = new Retention(log);
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

    retention.add({
      name: 'telegram log',
      prune: (batch) => telegramLog.prune(daysAgo(config.plc.telegramLog.keepDays), config.plc.telegramLog.maxRows, batch),
    });
    retention.add({ name: 'cleared alarms', prune: (batch) => alarms.prune(daysAgo(config.events.keepDays), batch) });

    // The hub link runs the hub's commands through the route table, built below from the modules.
    let router: Router | undefined;
    let hub: Principal | undefined;
    let baseUrl = config.server.publicUrl?.replace(/\/$/, '') ?? '';
    const federation = new Federation({
      config: config.federation,
      db,
      work,
      events,
      alarms,
      call: (request, requestId) =>
        invoke({ router: router!, principal: (hub ??= hubPrincipal(routes)), baseUrl, messageKeys: config.api.messageKeys, log }, request, requestId),
      messageKeys: config.api.messageKeys,
      bodyLimitBytes: config.server.bodyLimitBytes,
      log,
    });
    // Events not yet exported to the hub outlive events.keepDays (events.maxRows still bounds the log).
    retention.add({ name: 'events', prune: (batch) => events.prune(daysAgo(config.events.keepDays), config.events.maxRows, batch, federation.exportedUpto()) });
    // A command is remembered while the commands stream may still deliver it again.
    const commandDays = Math.max(config.events.keepDays, config.federation.stream.maxAgeDays + 1);
    retention.add({ name: 'hub commands', prune: (batch) => federation.store.prune(daysAgo(commandDays), batch) });

    // One adapter for OSIP and signal channels: what a report means is decided once.
    const adapter = createAdapter({ work, log, common, routing, transportOrders });
    const telegramHandler = (options.plcHandler ?? plcHandler)({ work, log, common, routing, transportOrders, channels: plc, adapter });
    const metrics = new Metrics({ channels: plc.list(), signalChannels: plc.signalChannels(), lateAfterMs: plc.lateAfterMs, databases: { main: file, logs: logsFileOf(file) }, work, streams, alarms, federation });
    // The appliance is this list. Started in order once HTTP listens, stopped in reverse:
    // the PLC channels last in, first out, so no telegram reaches a closing database.
    const modules: ModuleDescriptor[] = [
      { name: 'metrics', routes: [], start: () => metrics.start(), stop: () => metrics.stop() },
      usersModule(users),
      preferencesModule(preferences),
      tasksModule(tasks),
      commonModule(common),
      inventoryModule(inventory),
      movementsModule(movements),
      shippingModule(shipping),
      receivingModule(receiving),
      routingModule(routing),
      transportOrdersModule(transportOrders),
      backupsModule({ db, work, dir: path.join(dataDir, 'backups'), keep: config.storage.backupsToKeep, nativeBinding }),
      eventsModule({ streams, tickets, history: createHistory(events, telegramLog, (records) => plc.withFields(records)), stop: () => streams.shutdown() }),
      alarmsModule(alarms),
      hmiModule(),
      { name: 'retention', routes: [], start: () => retention.start(), stop: () => retention.stop() },
      federationModule(federation),
      plcModule(plc, telegramHandler, telegramLog, adapter),
    ];
    const indexLinks = Object.assign({}, ...modules.map((m) => m.indexLinks ?? {})) as Record<string, string>;
    const routes: Route[] = [
      ...systemRoutes({ db, version: VERSION, indexLinks, startedAt, metrics, routes: () => routes, metricsPublic: config.server.metricsPublic }),
      ...modules.flatMap((m) => m.routes),
    ];
    router = new Router(routes);

    if (common.seed()) log.info('first start: default account, root location group and type catalogues written');
    const seeded = await users.seed(grantCatalogue(routes), config.auth.adminPassword, options.resetAdmin);
    if (seeded.adminReset) {
      log.warn({ username: 'admin' }, 'user admin restored from the command line: unlocked, enabled, role ADMIN, new password');
    } else if (seeded.generatedPassword) {
      const file = writeInitialPassword(dataDir, seeded.generatedPassword);
      log.warn({ username: 'admin', file }, `first start: generated the password of user admin and wrote it to ${file} (readable by this user only); log in, change it, and the file is removed`);
    } else if (seeded.adminCreated) {
      log.info({ username: 'admin' }, 'first start: user admin created with the password from WMS_ADMIN_PASSWORD');
    }
    forgetInitialPasswordOnChange(dataDir, work.bus, log);

    const server = createHttpServer({
      router,
      authenticate: (authorization) => users.authenticate(authorization),
      redeemTicket: (ticket) => users.currentPrincipalOrRefuse(tickets.redeem(ticket)),
      log,
      bodyLimitBytes: config.server.bodyLimitBytes,
      corsOrigins: config.server.corsOrigins,
      publicUrl: config.server.publicUrl,
      messageKeys: config.api.messageKeys,
      requestTimeoutMs: config.server.requestTimeoutMs,
      metrics: metrics.http,
      tls: readTls(config.server.tls),
      grouped: (fn) => work.grouped(fn),
      pendingCommit: () => work.pendingCommit(),
    });
    const address = await listen(server, config.server.port, config.server.host);
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const scheme = config.server.tls ? 'https' : 'http';
    const url = `${scheme}://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
    baseUrl ||= url;
    const started: ModuleDescriptor[] = [];
    const stopModules = async () => {
      for (const module of started.reverse()) {
        try {
          await module.stop?.();
        } catch (err) {
          log.error({ err, module: module.name }, 'stopping a module failed');
        }
      }
      started.length = 0;
    };
    try {
      for (const module of modules) {
        await module.start?.();
        started.push(module);
      }
    } catch (err) {
      await stopModules();
      await closeServer(server);
      throw err;
    }
    log.info({ url, version: VERSION, database: file, routes: routes.length, plcChannels: plc.list().length }, 'appliance started');

    let closing: Promise<void> | undefined;
    return {
      config,
      url,
      port: address.port,
      db,
      log,
      work,
      bus: work.bus,
      events,
      users,
      common,
      inventory,
      routing,
      transportOrders,
      alarms,
      plc,
      telegramLog,
      retention,
      streams,
      routes,
      close() {
        closing ??= (async () => {
          // No new connections from here on; requests under way go on.
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          // Modules in reverse: the PLC first (it answers what it has read, then closes
          // its links), open event streams before the server (they would keep it
          // waiting for ever).
          await stopModules();
          const cut = await drain(server, closed, STOP_DRAIN_MS);
          if (cut > 0) log.warn({ connections: cut, waitedMs: STOP_DRAIN_MS }, 'requests still under way at stop were cut off');
          work.commitGroup();
          reads.close();
          await logs.close();
          // Everything committed is folded into the database file: the next start (or a
          // copy of the data directory) needs no WAL.
          db.pragma('wal_checkpoint(TRUNCATE)');
          db.close();
          log.info('appliance stopped');
          log.flush();
        })();
        return closing;
      },
    };
  } catch (err) {
    await logStore?.close();
    db.close();
    throw err;
  }
}

/**
 * Who a hub command runs as in the route table: a caller holding every grant of the
 * routes (the hub is trusted as far as the site configured it; which commands exist
 * is decided by federation/commands.ts). Its events name the actor `hub`.
 */
function hubPrincipal(routes: readonly Route[]): Principal {
  return { id: 'hub', username: 'hub', kind: 'api-key', grants: new Set(grantsOf(routes)), roleNames: [] };
}

/** The certificate and key of `server.tls`, read once at start; a file that cannot be read stops the start naming it. */
function readTls(tls: Config['server']['tls']): { cert: Buffer; key: Buffer } | undefined {
  if (!tls) return undefined;
  const read = (what: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new StartupError(`server.tls.${what}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const cert = read('cert', tls.cert);
  const key = read('key', tls.key);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new StartupError(`server.tls: ${tls.cert} and ${tls.key} are not a PEM certificate and its private key (${(err as Error).message})`);
  }
  return { cert, key };
}

/** Read connections at most: each streamed list holds one while it is written; more wait their turn. */
const READ_CONNECTIONS = 4;

/** How long a stop waits for requests under way before it cuts them off. */
const STOP_DRAIN_MS = 10_000;

/**
 * Waits until the closed server's requests are answered (`closed`), at most `ms`; then
 * cuts the connections left. Returns how many it cut.
 */
async function drain(server: Server, closed: Promise<void>, ms: number): Promise<number> {
  // Keep-alive connections that finished their request go now, not at their timeout.
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    if ((await Promise.race([closed, late])) !== 'late') return 0;
    const count = await new Promise<number>((resolve) => server.getConnections((_err, n) => resolve(n)));
    server.closeAllConnections();
    await closed;
    return count;
  } finally {
    clearInterval(idle);
    clearTimeout(timer);
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * The first admin's generated password goes to a file only the appliance's user can
 * read, not into the log: logs are shipped, kept and read by more people than the box.
 */
const INITIAL_PASSWORD_FILE = 'initial-admin-password';

function writeInitialPassword(dataDir: string, password: string): string {
  const file = path.join(dataDir, INITIAL_PASSWORD_FILE);
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return file;
}

/** Once admin's password is changed, the generated one is worthless: its file goes. */
function forgetInitialPasswordOnChange(dataDir: string, bus: EventBus, log: Logger): void {
  const file = path.join(dataDir, INITIAL_PASSWORD_FILE);
  if (!existsSync(file)) return;
  const off = bus.on('user.passwordChanged', (event) => {
    if (event.data.username !== 'admin') return;
    rmSync(file, { force: true });
    off();
    log.info({ file }, 'the password of user admin was changed; the generated one is removed');
  });
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      // Say what to do, not only what happened: an installer's next step is another port.
      if (err.code === 'EADDRINUSE') err.message = `another program already listens on ${host}:${port}; choose another port with --port N (or WMS_PORT, server.port in wms.config.json)`;
      if (err.code === 'EACCES') err.message = `no permission to listen on ${host}:${port} (ports below 1024 need root or CAP_NET_BIND_SERVICE); choose another with --port N`;
      reject(err);
    });
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
