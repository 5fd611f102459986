// Slows down password guessing at the token endpoint, per client address: each address
// has a bucket of `perMinute` attempts that refills at `perMinute` a minute. Every
// attempt takes one when it starts (parallel attempts cannot slip past a check that
// runs before any of them failed); a successful login gives its one back, so a shift
// of terminals behind one address logging in is never held up, while an address that
// keeps failing gets 429 with the seconds until it may try again. A login of a user from
// an address it signed in from before neither takes nor waits (login-addresses/service.ts): a
// guesser who drained the bucket of a shared address holds up no one who works there.
//
// Addresses are the TCP peers as the appliance sees them. Behind a reverse proxy every
// client shares the proxy's address; such a site limits logins at the proxy.

/** Buckets kept at most; full buckets are forgotten first when there are more. */
const MAX_TRACKED = 10_000;

interface Bucket {
  attempts: number;
  at: number;
}

export class LoginThrottle {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMinute: number;
  private readonly perMs: number;
  private readonly clock: () => number;

  /** `perMinute` 0 turns the throttle off. */
  constructor(perMinute: number, clock: () => number = () => Date.now()) {
    this.perMinute = perMinute;
    this.perMs = perMinute / 60_000;
    this.clock = clock;
  }

  /** Takes an attempt for the address: 0 when it may go on, else the seconds until it may try again. */
  take(address: string): number {
    if (this.perMinute === 0) return 0;
    const bucket = this.refilled(address);
    if (bucket.attempts < 1) return Math.max(1, Math.ceil((1 - bucket.attempts) / this.perMs / 1000));
    bucket.attempts -= 1;
    return 0;
  }

  /** A successful login: its attempt does not count against the address. */
  giveBack(address: string): void {
    if (this.perMinute === 0) return;
    const bucket = this.refilled(address);
    bucket.attempts = Math.min(this.perMinute, bucket.attempts + 1);
  }

  private refilled(address: string): Bucket {
    const now = this.clock();
    let bucket = this.buckets.get(address);
    if (!bucket) {
      if (this.buckets.size >= MAX_TRACKED) this.forgetFull(now);
      bucket = { attempts: this.perMinute, at: now };
      this.buckets.set(address, bucket);
      return bucket;
    }
    // A clock set back (NTP, an operator) refills nothing rather than draining the bucket.
    bucket.attempts = Math.min(this.perMinute, bucket.attempts + Math.max(0, now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket;
  }

  /** Drops buckets that have refilled (they hold nothing a new one would not); if none has, the oldest. */
  private forgetFull(now: number): void {
    for (const [address, bucket] of this.buckets) {
      if (bucket.attempts + (now - bucket.at) * this.perMs >= this.perMinute) this.buckets.delete(address);
    }
    if (this.buckets.size >= MAX_TRACKED) this.buckets.delete(this.buckets.keys().next().value!);
  }
}
