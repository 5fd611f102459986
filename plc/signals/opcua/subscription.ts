// The subscription an OPC UA signal channel asks its server for, from the channel's
// samplingMs: publishing at the sampling interval (0 asks the server to sample as fast as
// it can, but publishing needs an interval: at least 20 ms), a keep-alive about
// every 5 s when nothing changes, and a lifetime of about 60 s without us. One place, so
// that the benchmark's bare client (scripts/bench-signals) asks for the very same.

export function subscriptionRequest(samplingMs: number) {
  const publishingMs = Math.max(samplingMs, 20);
  return {
    requestedPublishingInterval: publishingMs,
    requestedMaxKeepAliveCount: Math.max(1, Math.ceil(5000 / publishingMs)),
    requestedLifetimeCount: Math.max(3, Math.ceil(60_000 / publishingMs)),
    maxNotificationsPerPublish: 0,
    publishingEnabled: true,
    priority: 10,
  };
}
