// The NATS client of the hub link and of the pair, as one module. The appliance's bundle
// and single binary carry it as a bundle apart, `nats-client.cjs` (src/core/apart.ts):
// 500 KB of code that only a box with `federation.site` or `ha.pair` reads.

export * as nats from '@nats-io/transport-node';
export * as js from '@nats-io/jetstream';
export * as kv from '@nats-io/kv';
