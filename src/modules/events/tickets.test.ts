import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../core/errors.ts';
import type { Principal } from '../../http/context.ts';
import { EventTickets, TICKET_TTL_SECONDS } from './tickets.ts';

// Event stream tickets against a clock of the test's own (60 s cannot be waited for).

const alice: Principal = { id: 'p-alice', username: 'alice', kind: 'user', grants: new Set(['events:read']), roleNames: [] };

describe('EventTickets', () => {
  it('a ticket names its caller once, until it expires', () => {
    let now = 1_000_000;
    const tickets = new EventTickets(() => now);
    const first = tickets.issue(alice);
    expect(first.expiresIn).toBe(TICKET_TTL_SECONDS);
    expect(tickets.redeem(first.ticket)).toBe(alice);
    expect(() => tickets.redeem(first.ticket)).toThrow(AuthenticationError);

    const second = tickets.issue(alice);
    now += TICKET_TTL_SECONDS * 1000 - 1;
    expect(tickets.redeem(second.ticket)).toBe(alice);

    const third = tickets.issue(alice);
    now += TICKET_TTL_SECONDS * 1000;
    expect(() => tickets.redeem(third.ticket)).toThrow(/expired/);
  });

  it('tickets are unguessable and distinct; unknown ones are refused', () => {
    const tickets = new EventTickets();
    const seen = new Set(Array.from({ length: 1000 }, () => tickets.issue(alice).ticket));
    expect(seen.size).toBe(1000);
    for (const t of seen) expect(t).toMatch(/^[\w-]{32}$/);
    expect(() => tickets.redeem('guess')).toThrow(AuthenticationError);
  });

  it('expired tickets are dropped as new ones are issued, so unused ones cannot pile up', () => {
    let now = 0;
    const tickets = new EventTickets(() => now);
    const old = tickets.issue(alice);
    now += TICKET_TTL_SECONDS * 1000 + 1;
    tickets.issue(alice);
    expect(() => tickets.redeem(old.ticket)).toThrow(AuthenticationError);
    expect((tickets as unknown as { open: Map<string, unknown> }).open.size).toBe(1);
  });
});
