import { effect, signal } from '@preact/signals';

// The login of this tab. The token lives in sessionStorage: it survives a reload and
// dies with the tab, so a panel PC left alone does not hand the next person a session
// from another tab or day. Only state here; logging in is auth.ts.
//
// The session ends when its token expires, as it happens: the page does not wait for
// the user's next action to be refused. The moment is the token's lifetime
// (`expires_in`) counted from its arrival on the browser's own clock, so a box whose
// clock differs from the browser's changes nothing; it is never early, since the
// appliance counted from before the answer left.

export interface User {
  username: string;
  roleNames: readonly string[];
  grants: ReadonlySet<string>;
}

/**
 * anonymous: nobody logged in · checking: a stored token is being checked ·
 * active: logged in · expired: the token was refused (401); the page stays as it is
 * under the login until someone logs in again.
 */
type SessionState = 'anonymous' | 'checking' | 'active' | 'expired';

const KEY = 'wms.hmi.session';

interface Stored {
  token: string;
  username: string;
  /** When the token expires, in the browser's epoch milliseconds (absent in a tab logged in by an older page: its refusal tells). */
  expiresAt?: number;
}

function readStored(): Stored | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<Stored> | null;
    if (typeof value?.token !== 'string' || typeof value.username !== 'string') return undefined;
    return { token: value.token, username: value.username, ...(typeof value.expiresAt === 'number' ? { expiresAt: value.expiresAt } : {}) };
  } catch {
    return undefined;
  }
}

const stored = readStored();

export const token = signal<string | undefined>(stored?.token);
const expiresAt = signal<number | undefined>(stored?.expiresAt);
/** The last user logged in in this tab: the login after an expiry offers it. */
export const lastUsername = signal<string>(stored?.username ?? '');
export const user = signal<User | undefined>(undefined);
export const sessionState = signal<SessionState>(stored ? 'checking' : 'anonymous');

/** Whether the user holds a grant: screens offer only what it allows. */
export const can = (grant: string): boolean => user.value?.grants.has(grant) ?? false;

/** A token as the token endpoint gave it: it lasts `seconds` from now. */
export function storeToken(value: string, username: string, seconds: number): void {
  const stored: Stored = { token: value, username, expiresAt: Date.now() + seconds * 1000 };
  token.value = value;
  expiresAt.value = stored.expiresAt;
  lastUsername.value = username;
  sessionStorage.setItem(KEY, JSON.stringify(stored));
}

function forgetToken(): void {
  token.value = undefined;
  expiresAt.value = undefined;
  user.value = undefined;
  sessionStorage.removeItem(KEY);
}

// Requests refused for an expired session wait here for the next login, then go again.
let waiting: (() => void)[] = [];

/** The token was refused or ran out: show the login over the page and hold requests until it is done. */
export function expire(): Promise<void> {
  if (sessionState.value !== 'anonymous') sessionState.value = 'expired';
  return new Promise<void>((resolve) => waiting.push(resolve));
}

/** A login succeeded: the page goes on, and held requests are sent again with the new token. */
export function activate(u: User): void {
  user.value = u;
  sessionState.value = 'active';
  const resume = waiting;
  waiting = [];
  for (const go of resume) go();
}

/** Logged out: held requests are dropped (their promises never settle, their screens are gone). */
export function deactivate(): void {
  waiting = [];
  forgetToken();
  sessionState.value = 'anonymous';
}

/** The longest wait a browser timer keeps (about 24.8 days); a longer token is waited for in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

// The token's expiry, waited for from its arrival (a new login waits for its own).
let expiryTimer: number | undefined;
effect(() => {
  window.clearTimeout(expiryTimer);
  const at = expiresAt.value;
  if (at === undefined) return;
  const wait = () => {
    const left = at - Date.now();
    if (left <= 0) void expire();
    else expiryTimer = window.setTimeout(wait, Math.min(left, LONGEST_TIMER_MS));
  };
  // From a timer, also when it is due already: the session's state is not this effect's to follow.
  expiryTimer = window.setTimeout(wait, 0);
});
