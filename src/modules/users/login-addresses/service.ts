import type { Db } from '../../../core/db.ts';
import { nowIso } from '../../../core/time.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { createLoginAddressStore } from './store.ts';

// The places a user signs in from. A successful login from a client address makes the
// address *known* for that user (for KNOWN_ADDRESS_DAYS after its last successful
// login; the newest KNOWN_ADDRESSES_PER_USER of them).
//
// Why: five failed logins in a row lock an account against guessing, but whoever can
// reach the port and knows a user name (`admin` is on every box) could then keep its
// owner locked out for good. The address tells the owner from the guesser, so
// (../authentication.ts):
// - a lock after failed logins holds against addresses the user never signed in from;
//   a known address signs in past it, and only their failures count towards it;
// - the per-address limit on attempts (../login-throttle.ts) neither counts nor holds up
//   the login of a user from an address it signed in from.
// Guessing stays bounded everywhere: a stranger's guesses meet the lock and the limit,
// and a known address that fails five times in a row is forgotten, so whoever guesses
// there gets five more tries than a stranger, no more, until the owner signs in from
// it again. An administrator's lock holds everywhere.
//
// An address is the TCP peer as the appliance sees it: behind a reverse proxy all
// clients share the proxy's, and the rule cannot tell them apart.

/** Addresses remembered per user at most; the least recently used goes first. */
const KNOWN_ADDRESSES_PER_USER = 20;
/** How long an address stays known after the last successful login from it. */
const KNOWN_ADDRESS_DAYS = 90;
/** A known address's last login is written again when older than this, not at every login. */
const REFRESH_MS = 24 * 60 * 60_000;

/** What a failed login from an address was: not known (the account's to count), counted, or its last failure as a known one. */
type AddressFailure = 'unknown' | 'counted' | 'forgotten';

export function createLoginAddresses(db: Db, work: UnitOfWork) {
  const store = createLoginAddressStore(db);
  /** Addresses whose last login is older than this are no longer known. */
  const knownSince = () => new Date(Date.now() - KNOWN_ADDRESS_DAYS * 86_400_000).toISOString();

  return {
    /** Whether the user signed in from the address lately (and has not failed five times in a row from it since). */
    isKnown: (userPk: string, address: string): boolean => store.known(userPk, address, knownSince()) !== undefined,

    /** A successful login from the address: known from now on, its failures forgotten. */
    signedIn(userPk: string, address: string): void {
      const known = store.known(userPk, address, knownSince());
      // Most logins come from where the user signed in the day before: nothing to write.
      if (known && known.failed_logins === 0 && Date.parse(known.last_login_dt) > Date.now() - REFRESH_MS) return;
      work.run(() => {
        store.remember(userPk, address, nowIso());
        store.prune(userPk, knownSince(), KNOWN_ADDRESSES_PER_USER);
      });
    },

    /** A failed login from the address; at `limit` failures in a row a known address is forgotten. */
    failed(userPk: string, address: string, limit: number): AddressFailure {
      return work.run(() => {
        // Counted in SQL: parallel failures each count, whatever the caller read before.
        const failures = store.failedOnce(userPk, address, knownSince());
        if (failures === undefined) return 'unknown';
        if (failures < limit) return 'counted';
        store.forget(userPk, address);
        return 'forgotten';
      });
    },
  };
}

export type LoginAddresses = ReturnType<typeof createLoginAddresses>;
