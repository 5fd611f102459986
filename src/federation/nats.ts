import { readFileSync } from 'node:fs';
import type { NatsConnection, NodeConnectionOptions } from '@nats-io/transport-node';
import type { FederationConfig } from './config.ts';

// The NATS client (@nats-io/transport-node, @nats-io/jetstream), loaded when the hub
// link starts: a box without `federation.site` loads none of it.

export type NatsClient = typeof import('@nats-io/transport-node');
export type JetStreamLib = typeof import('@nats-io/jetstream');

export interface NatsLibraries {
  nats: NatsClient;
  js: JetStreamLib;
}

export async function loadNats(): Promise<NatsLibraries> {
  const [nats, js] = await Promise.all([import('@nats-io/transport-node'), import('@nats-io/jetstream')]);
  return { nats, js };
}

/**
 * The connection options of the config: keeps reconnecting for ever (a hall runs on
 * while the office is away), and waits for a server that is not up yet at start.
 */
export function connectOptions(lib: NatsClient, config: FederationConfig, site: string): NodeConnectionOptions {
  const { nats } = config;
  const options: NodeConnectionOptions = {
    servers: nats.servers,
    name: `wms-${site}`,
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    pingInterval: 10_000,
  };
  if (nats.token !== undefined) options.token = nats.token;
  if (nats.user !== undefined) {
    options.user = nats.user;
    options.pass = nats.password!;
  }
  if (nats.credsFile !== undefined) {
    const file = nats.credsFile;
    // Read at every (re)connect: a credentials file replaced on the box is taken up.
    options.authenticator = lib.credsAuthenticator(() => new Uint8Array(readFileSync(file)));
  }
  if (nats.tls) {
    options.tls = {
      ...(nats.tls.ca !== undefined ? { caFile: nats.tls.ca } : {}),
      ...(nats.tls.cert !== undefined ? { certFile: nats.tls.cert, keyFile: nats.tls.key! } : {}),
    };
  }
  return options;
}

export type { NatsConnection };
