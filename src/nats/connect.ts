import { readFileSync } from 'node:fs';
import type { NatsConnection, NodeConnectionOptions } from '@nats-io/transport-node';
import type { NatsConnectionConfig } from './config.ts';

// The NATS client (@nats-io/transport-node, @nats-io/jetstream, @nats-io/kv; client.ts),
// loaded when the hub link or the pair starts: a box with neither reads none of it.

type NatsClient = typeof import('@nats-io/transport-node');
export type JetStreamLib = typeof import('@nats-io/jetstream');
export type KvLib = typeof import('@nats-io/kv');

export interface NatsLibraries {
  nats: NatsClient;
  js: JetStreamLib;
  kv: KvLib;
}

export async function loadNats(): Promise<NatsLibraries> {
  const { nats, js, kv } = await import('./client.ts');
  return { nats, js, kv };
}

/**
 * The connection options of the config, for a client named `name`: once connected, keeps
 * reconnecting for ever (a hall runs on while the office is away, a pair while a node of
 * its cluster restarts). A first connection that fails fails at once: the caller tries
 * again itself (the hub link: federation/link.ts), so a stop can end the trying.
 */
export function connectOptions(lib: NatsClient, nats: NatsConnectionConfig, name: string): NodeConnectionOptions {
  const options: NodeConnectionOptions = {
    servers: nats.servers,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    pingInterval: 10_000,
    // Logins refused while reconnecting (a leaf node restarted with other credentials for a
    // while, a credentials file being replaced) do not end the reconnecting.
    ignoreAuthErrorAbort: true,
    // No stack trace captured for every publish and request (half the client's CPU per event).
    noAsyncTraces: true,
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
