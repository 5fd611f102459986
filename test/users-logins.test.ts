import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectServerError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { allUsers, createRole, createUser, expectLoginRefused, login, userByPk } from './support/users.ts';
import { until } from './support/warehouse.ts';

// Logins and the tokens they give (docs/users.md): a token carries the grants of the
// user's roles as they are at each request; a lock or a password change ends the
// tokens issued before it, a disabled or expired account gets none, and five failed
// logins in a row lock the account.

let wms: TestAppliance;

beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

describe('authorisation through roles and grants', () => {
  const LOCATION = {
    links: [],
    locationId: 'USRS/0001/0001/0000/0000',
    plcCode: 'USRS-PLC-1',
    erpCode: 'USRS-ERP-1',
    type: 'CONVEYOR',
    locationGroupName: 'WAREHOUSE',
  };
  const locationCount = () => wms.app.db.prepare('SELECT count(*) FROM locations').pluck().get() as number;
  let role: any;
  let user: any;
  let token: string;

  beforeAll(async () => {
    role = await createRole(wms, { name: 'LOC_READER', grants: ['locations:read'] });
    user = await createUser(wms, { username: 'reader', password: 'reader-password', roleNames: ['LOC_READER'] });
    token = await login(wms, 'reader', 'reader-password');
  });

  it('a user holding only locations:read may read locations but not create one', async () => {
    expect((await wms.get('/v1/locations', { token })).status).toBe(200);
    const before = locationCount();
    const reply = await wms.post('/v1/locations', LOCATION, { token });
    expectServerError(reply, 403);
    expect(reply.body.message).toContain('locations:write');
    expect(locationCount()).toBe(before);
    expectServerError(await wms.get('/users', { token }), 403);
  });

  it('after the grant is taken from the role, the same token gets 403 at the next request', async () => {
    const reply = await wms.put('/roles', { pKey: role.pKey, name: 'LOC_READER', grants: [] });
    expect(reply.status, reply.text).toBe(200);
    expectServerError(await wms.get('/v1/locations', { token }), 403);
    const back = await wms.put('/roles', { pKey: role.pKey, name: 'LOC_READER', grants: ['locations:read'] });
    expect(back.status).toBe(200);
    expect((await wms.get('/v1/locations', { token })).status).toBe(200);
  });

  it('after the user is locked, its token gets 401 at the next request', async () => {
    const reply = await wms.put('/users', { pKey: user.pKey, username: 'reader', locked: true });
    expect(reply.status, reply.text).toBe(200);
    const refused = await wms.get('/v1/locations', { token });
    expectServerError(refused, 401);
    expect(refused.body.message).toMatch(/locked/);
  });

  it('a disabled user cannot log in', async () => {
    await createUser(wms, { username: 'disabled-user', password: 'disabled-password', enabled: false, roleNames: ['LOC_READER'] });
    const reply = await expectLoginRefused(wms, 'disabled-user', 'disabled-password');
    expect(reply.body.message).toBe('Bad credentials');
  });

  it('an expired user cannot log in', async () => {
    await createUser(wms, {
      username: 'expired-user',
      password: 'expired-password',
      expirationDate: '2020-01-01T00:00:00.000Z',
      roleNames: ['LOC_READER'],
    });
    const reply = await expectLoginRefused(wms, 'expired-user', 'expired-password');
    expect(reply.body.message).toBe('Bad credentials');
  });
});

describe('a password change', () => {
  it('ends the tokens issued before it; a new login works', async () => {
    await createRole(wms, { name: 'LOC_READER_2', grants: ['locations:read'] });
    const user = await createUser(wms, { username: 'changer', password: 'changer-password-1', roleNames: ['LOC_READER_2'] });
    const old = await login(wms, 'changer', 'changer-password-1');
    expect((await wms.get('/v1/locations', { token: old })).status).toBe(200);
    // iat has whole seconds: a token of the very second of the change still counts, so the
    // change waits until the clock has left the second the old token was issued in.
    const issuedAt = (JSON.parse(Buffer.from(old.split('.')[1]!, 'base64url').toString()) as { iat: number }).iat;
    await until(() => Date.now() >= (issuedAt + 1) * 1000, 'the second after the old token was issued');
    const changed = await wms.post(`/users/${user.pKey}/password`, { password: 'changer-password-2' });
    expect(changed.status, changed.text).toBe(200);
    const refused = await wms.get('/v1/locations', { token: old });
    expectServerError(refused, 401);
    expect(refused.body.message).toMatch(/password was changed/);
    const fresh = await login(wms, 'changer', 'changer-password-2');
    expect((await wms.get('/v1/locations', { token: fresh })).status).toBe(200);
  });
});

describe('account lockout after failed logins', () => {
  it('five failed logins in a row lock the account; an admin unlocks it', async () => {
    const user = await createUser(wms, { username: 'fumbler', password: 'fumbler-password' });
    for (let i = 0; i < 5; i++) await expectLoginRefused(wms, 'fumbler', `wrong-password-${i}`);
    const sixth = await expectLoginRefused(wms, 'fumbler', 'fumbler-password');
    expect(sixth.body.message).toBe('Bad credentials');
    const locked = await userByPk(wms, user.pKey);
    expect(locked.locked).toBe(true);

    const unlocked = await wms.put('/users', { pKey: user.pKey, ol: locked.ol, username: 'fumbler', locked: false });
    expect(unlocked.status, unlocked.text).toBe(200);
    expect(unlocked.body.locked).toBe(false);
    await login(wms, 'fumbler', 'fumbler-password');
  });

  it('a successful login resets the count of failures', async () => {
    const user = await createUser(wms, { username: 'recoverer', password: 'recoverer-password' });
    for (let i = 0; i < 4; i++) await expectLoginRefused(wms, 'recoverer', `wrong-password-${i}`);
    await login(wms, 'recoverer', 'recoverer-password');
    for (let i = 0; i < 4; i++) await expectLoginRefused(wms, 'recoverer', `wrong-password-${i}`);
    expect((await userByPk(wms, user.pKey)).locked).toBe(false);
    await login(wms, 'recoverer', 'recoverer-password');
  });

  it('a change of other fields does not forget the failures; only unlocking does', async () => {
    const user = await createUser(wms, { username: 'counted', password: 'counted-password' });
    for (let i = 0; i < 4; i++) await expectLoginRefused(wms, 'counted', `wrong-password-${i}`);
    const changed = await wms.put('/users', { pKey: user.pKey, username: 'counted', fullname: 'Still Counted' });
    expect(changed.status, changed.text).toBe(200);
    await expectLoginRefused(wms, 'counted', 'wrong-password-4');
    expect((await userByPk(wms, user.pKey)).locked).toBe(true);
  });

  it('an unknown username locks nothing and gets the same 401 as a wrong password', async () => {
    const before = await allUsers(wms);
    for (let i = 0; i < 6; i++) {
      const reply = await expectLoginRefused(wms, 'nobody-by-this-name', 'whatever-password');
      expect(reply.body.message).toBe('Bad credentials');
    }
    expect(await allUsers(wms)).toEqual(before);
  });
});

describe('the cost of a password hash (auth.passwordHashCost)', () => {
  const storedCost = (box: TestAppliance, username: string) =>
    (box.app.db.prepare('SELECT password_hash FROM users WHERE username = ?').pluck().get(username) as string).split('$')[1];

  it('hashes passwords at 16384 unless set, at the set cost otherwise, and logs in with each', async () => {
    for (const [cost, expected] of [
      [undefined, '16384'],
      [2048, '2048'],
    ] as const) {
      const box = await startTestAppliance({ auth: { passwordHashCost: cost } });
      try {
        await createUser(box, { username: 'cost-user', password: 'cost-user-password' });
        expect(storedCost(box, 'cost-user'), `auth.passwordHashCost ${cost}`).toBe(expected);
        expect(storedCost(box, 'admin')).toBe(expected);
        expect(await login(box, 'cost-user', 'cost-user-password')).toBeTruthy();
        // An unknown user is checked against a decoy of the same cost, and refused like a wrong password.
        await expectLoginRefused(box, 'no-such-user', 'cost-user-password');
      } finally {
        await box.close();
      }
    }
  });
});
