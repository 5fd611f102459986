import { get, request } from './api.ts';
import { stopLive } from './live.ts';
import { activate, deactivate, storeToken, token, type User } from './session.ts';

// Logging in and out with the token endpoint (password grant), and who the user is:
// GET /hmi/session names the grants of the token's user, whatever those grants are.

interface SessionBody {
  username: string;
  roleNames: string[];
  grants: string[];
}

interface TokenBody {
  access_token: string;
  /** Seconds the token lasts. */
  expires_in: number;
}

async function currentUser(): Promise<User> {
  const { body } = await get<SessionBody>('/hmi/session');
  return { username: body.username, roleNames: body.roleNames, grants: new Set(body.grants) };
}

/** Logs in; throws ApiFailure (401 for a wrong name or password, 429 when throttled). */
export async function login(username: string, password: string): Promise<void> {
  const { body } = await request<TokenBody>('POST', '/oauth/token', { anonymous: true, form: { grant_type: 'password', username, password } });
  storeToken(body.access_token, username, body.expires_in);
  activate(await currentUser());
}

/** On load: a token kept by this tab is checked; a refused one leads to the login (api.ts). */
export async function restore(): Promise<void> {
  if (!token.value) return;
  activate(await currentUser());
}

export function logout(): void {
  stopLive();
  deactivate();
}
