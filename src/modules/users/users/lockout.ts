import { nowIso } from '../../../core/time.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import type { User, UserStore } from './store.ts';

// The lock of an account after failed logins from addresses the user never signed in
// from (docs/users.md): counting the failures, locking, lifting a lock that has run out,
// and forgetting it all on a good login. authentication.ts decides when to ask; here is
// only what it writes, kept apart from the account's administration in service.ts.

/** The longest lock after failed logins, however often it repeats: a day. */
const MAX_LOCKOUT_MINUTES = 24 * 60;

interface LoginLockoutDeps {
  work: UnitOfWork;
  store: UserStore;
}

export function createLoginLockout({ work, store }: LoginLockoutDeps) {
  return {
    /**
     * Counts a failed login from an address the user never signed in from; at `limit`
     * failures in a row the account locks against such addresses (authentication.ts), for
     * `lockoutMinutes` doubled with every lock since the last successful login (at most a
     * day), or until an administrator unlocks it when `lockoutMinutes` is 0. Returns the
     * end of the lock when it locked now.
     */
    recordFailedLogin(user: User, limit: number, lockoutMinutes: number): { until: string | null } | undefined {
      return work.run(() => {
        // Counted in SQL: parallel failures each count, whatever the caller read before.
        const failures = store.failedLogin(user.pk);
        if (failures < limit) return undefined;
        const now = nowIso();
        const minutes = lockoutMinutes === 0 ? 0 : Math.min(lockoutMinutes * 2 ** user.lockouts, MAX_LOCKOUT_MINUTES);
        const until = minutes === 0 ? null : new Date(Date.parse(now) + minutes * 60_000).toISOString();
        if (store.lock(user.pk, until, now) === undefined) return undefined;
        work.emit({
          type: 'user.locked',
          key: user.username,
          data: { pKey: user.pk, username: user.username, failedLogins: failures, lockedUntil: until },
          reason: `${failures} failed logins in a row from addresses the user never signed in from`,
        });
        return { until };
      });
    },
    /** Lifts a lock after failed logins that has run out (its failures are forgotten with it). */
    releaseEndedLock(user: User): void {
      if (!user.lockExpired) return;
      work.run(() => {
        if (!store.releaseLock(user.pk, nowIso())) return;
        work.emit({
          type: 'user.unlocked',
          key: user.username,
          data: { pKey: user.pk, username: user.username },
          reason: 'the lock after failed logins ended',
        });
      });
    },
    /** A successful login from an address the user never signed in from: failures and earlier lockouts are forgotten. */
    loggedIn: (user: User) => {
      if (user.failedLogins > 0 || user.lockouts > 0) store.loggedIn(user.pk);
    },
  };
}
