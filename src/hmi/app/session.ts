import { signal } from '@preact/signals';

// The login of this tab. The token lives in sessionStorage: it survives a reload and
// dies with the tab, so a panel PC left alone does not hand the next person a session
// from another tab or day. Only state here; logging in is auth.ts.

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
export type SessionState = 'anonymous' | 'checking' | 'active' | 'expired';

const KEY = 'wms.hmi.session';

interface Stored {
  token: string;
  username: string;
}

function readStored(): Stored | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<Stored> | null;
    return typeof value?.token === 'string' && typeof value.username === 'string' ? { token: value.token, username: value.username } : undefined;
  } catch {
    return undefined;
  }
}

const stored = readStored();

export const token = signal<string | undefined>(stored?.token);
/** The last user logged in in this tab: the login after an expiry offers it. */
export const lastUsername = signal<string>(stored?.username ?? '');
export const user = signal<User | undefined>(undefined);
export const sessionState = signal<SessionState>(stored ? 'checking' : 'anonymous');

/** Whether the user holds a grant: screens offer only what it allows. */
export const can = (grant: string): boolean => user.value?.grants.has(grant) ?? false;

export function storeToken(value: string, username: string): void {
  token.value = value;
  lastUsername.value = username;
  sessionStorage.setItem(KEY, JSON.stringify({ token: value, username } satisfies Stored));
}

export function forgetToken(): void {
  token.value = undefined;
  user.value = undefined;
  sessionStorage.removeItem(KEY);
}

// Requests refused for an expired session wait here for the next login, then go again.
let waiting: (() => void)[] = [];

/** The token was refused: show the login over the page and hold requests until it is done. */
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
