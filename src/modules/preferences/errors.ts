import { DomainError } from '../../core/errors.ts';

// The message keys of the preferences module (docs/preferences.md, "Errors of the
// module"). One key, two statuses: 401 when the user is not named, 403 when it is
// another user.

export const PREFERENCE_KEYS = {
  notFoundByPKey: 'svc.core.preferences.notFoundByPKey',
  notAllowedToFetchUserPrefs: 'svc.core.preferences.notAllowedToFetchUserPrefs',
  alreadyExistsWithOwnerAndScopeAndKey: 'svc.core.preferences.alreadyExistsWithOwnerAndScopeAndKey',
} as const;

/** 401 of the spec: user preferences asked for without naming the user; body `message`, `messageKey`, `httpStatus` only. */
export const userNotNamed = () =>
  new DomainError(401, PREFERENCE_KEYS.notAllowedToFetchUserPrefs, 'Not allowed to fetch user preferences without naming the user', { minimal: true });

/** 403: another user's preferences. */
export const notOwner = (owner: string, caller: { username: string }) =>
  new DomainError(403, PREFERENCE_KEYS.notAllowedToFetchUserPrefs, `User [${caller.username}] is not allowed to access the user preferences of [${owner}]`);
