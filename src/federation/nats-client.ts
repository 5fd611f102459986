// The NATS client of the hub link, as one module. The appliance's bundle and single
// binary carry it as a bundle apart, `nats-client.cjs` (src/core/apart.ts): 450 KB of code
// that only a box with `federation.site` reads.

export * as nats from '@nats-io/transport-node';
export * as js from '@nats-io/jetstream';
