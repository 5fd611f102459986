import { randomBytes } from 'node:crypto';
import { AuthenticationError } from '../../core/errors.ts';
import type { Principal } from '../../http/context.ts';

// Tickets for browsers' EventSource, which cannot send an Authorization header: a page
// that holds a token asks `POST /v1/events/tickets` for a ticket and opens
// `GET /v1/events?ticket=…`. A ticket is good once, for TTL_SECONDS, and only for the
// caller it was issued to; the stream then runs with that caller's grants as they are
// when it opens. Tickets live in memory: a restart voids them, and pages ask again.

export const TICKET_TTL_SECONDS = 60;
/** Tickets waiting to be used; past this the oldest are dropped (a client asking in a loop cannot grow memory). */
const MAX_OPEN = 10_000;

export class EventTickets {
  private readonly open = new Map<string, { principal: Principal; expires: number }>();
  private readonly now: () => number;

  /** `now`: the clock (tests pass their own). */
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  issue(principal: Principal): { ticket: string; expiresIn: number } {
    const now = this.now();
    for (const [ticket, entry] of this.open) {
      if (entry.expires > now && this.open.size < MAX_OPEN) break;
      this.open.delete(ticket); // insertion order = expiry order: the oldest go first
    }
    const ticket = randomBytes(24).toString('base64url');
    this.open.set(ticket, { principal, expires: now + TICKET_TTL_SECONDS * 1000 });
    return { ticket, expiresIn: TICKET_TTL_SECONDS };
  }

  /** The caller a ticket was issued to; the ticket is used up. Unknown, used or expired: 401. */
  redeem(ticket: string): Principal {
    const entry = this.open.get(ticket);
    this.open.delete(ticket);
    if (!entry || entry.expires <= this.now()) {
      throw new AuthenticationError('Invalid event stream ticket: unknown, already used or expired; ask POST /v1/events/tickets for a new one');
    }
    return entry.principal;
  }
}
