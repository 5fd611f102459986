import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectServerError, loginReply, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';

// What stands between a password guesser and an account: refusals that all read the
// same, failures counted however many logins run at once, a lock that ends by itself
// (longer each time), and a per-address limit on attempts. Over real HTTP.

let wms: TestAppliance;

beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());
afterEach(() => vi.useRealTimers());

async function createUser(username: string, password: string, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await wms.post('/users', { links: [], username, password, ...fields });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

const userNamed = async (username: string) =>
  ((await wms.get('/users')).body as any[]).find((u) => u.username === username);

/** A refusal without what differs between any two replies (time, request id). */
const shape = (reply: Reply) => ({ status: reply.status, message: reply.body?.message, error: reply.body?.error, path: reply.body?.path });

describe('a refused login tells nothing', () => {
  it('a locked, a disabled and an expired account answer the right password as a wrong one', async () => {
    await createUser('locked-one', 'locked-password', { locked: true });
    await createUser('disabled-one', 'disabled-password', { enabled: false });
    await createUser('expired-one', 'expired-password', { expirationDate: '2020-01-01T00:00:00.000Z' });
    const unknown = shape(await loginReply(wms, 'nobody-at-all', 'whatever-password'));
    expect(unknown).toEqual({ status: 401, message: 'Bad credentials', error: 'Unauthorized', path: '/oauth/token' });
    for (const name of ['locked-one', 'disabled-one', 'expired-one']) {
      const right = await loginReply(wms, name, `${name.split('-')[0]}-password`);
      const wrong = await loginReply(wms, name, 'not-the-password');
      expectServerError(right, 401);
      expect(shape(right), name).toEqual(unknown);
      expect(shape(wrong), name).toEqual(unknown);
    }
  });

  it('a locked account counts no failures (guessing behind the lock changes nothing)', async () => {
    await createUser('locked-two', 'locked-password', { locked: true });
    for (let i = 0; i < 8; i++) expectServerError(await loginReply(wms, 'locked-two', `guess-${i}`), 401);
    await wms.put('/users', { ...(await userNamed('locked-two')), locked: false });
    expect((await loginReply(wms, 'locked-two', 'locked-password')).status).toBe(200);
  });
});

describe('parallel logins', () => {
  it('a right password that finishes checking after the account locked gets no token', async () => {
    await createUser('swarmed', 'swarmed-password');
    // 30 wrong guesses, then 6 right ones: passwords are checked on a pool of a few
    // threads in turn, so the right ones finish after the fifth wrong one has locked the
    // account. Each must see the lock, not the account as it was when it arrived.
    const wrong = Array.from({ length: 30 }, (_, i) => loginReply(wms, 'swarmed', `guess-${i}`));
    // The first answer means all 30 are queued for checking (by then, one is checked).
    await Promise.race(wrong);
    const right = Array.from({ length: 6 }, () => loginReply(wms, 'swarmed', 'swarmed-password'));
    const replies = await Promise.all([...wrong, ...right]);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(0);
    for (const reply of replies) expectServerError(reply, 401);
    expect((await userNamed('swarmed')).locked).toBe(true);
    // One lock, one event, however many failures raced for it.
    const history = await wms.get('/v1/events/history?types=user.locked&subjectKind=user&subject=swarmed');
    expect(history.body).toHaveLength(1);
  });
});

describe('a lock after failed logins', () => {
  it('ends by itself after auth.lockoutMinutes, and the next one lasts twice as long', async () => {
    await createUser('forgetful', 'forgetful-password');
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    for (let i = 0; i < 5; i++) expectServerError(await loginReply(wms, 'forgetful', `guess-${i}`), 401);
    expect((await userNamed('forgetful')).locked).toBe(true);
    const locked = (await wms.get('/v1/events/history?types=user.locked&subjectKind=user&subject=forgetful')).body;
    expect(locked).toHaveLength(1);
    const first = Date.parse(locked[0].data.lockedUntil) - Date.parse(locked[0].at);
    expect(first).toBe(15 * 60_000);

    vi.setSystemTime(Date.now() + 14 * 60_000);
    expectServerError(await loginReply(wms, 'forgetful', 'forgetful-password'), 401);
    vi.setSystemTime(Date.now() + 2 * 60_000);
    expect((await userNamed('forgetful')).locked).toBe(false);
    // Released at the next login, failures forgotten: four more wrong ones do not lock again…
    for (let i = 0; i < 4; i++) expectServerError(await loginReply(wms, 'forgetful', `again-${i}`), 401);
    expect((await userNamed('forgetful')).locked).toBe(false);
    // …the fifth does, for 30 minutes this time.
    expectServerError(await loginReply(wms, 'forgetful', 'again-4'), 401);
    const both = (await wms.get('/v1/events/history?types=user.locked,user.unlocked&subjectKind=user&subject=forgetful')).body;
    expect(both.map((e: any) => e.type)).toEqual(['user.locked', 'user.unlocked', 'user.locked']);
    expect(Date.parse(both[2].data.lockedUntil) - Date.parse(both[2].at)).toBe(30 * 60_000);

    // A successful login after it ends starts the count of lockouts again.
    vi.setSystemTime(Date.now() + 31 * 60_000);
    expect((await loginReply(wms, 'forgetful', 'forgetful-password')).status).toBe(200);
    for (let i = 0; i < 5; i++) expectServerError(await loginReply(wms, 'forgetful', `third-${i}`), 401);
    const third = (await wms.get('/v1/events/history?types=user.locked&subjectKind=user&subject=forgetful')).body.at(-1);
    expect(Date.parse(third.data.lockedUntil) - Date.parse(third.at)).toBe(15 * 60_000);
  });

  it('an administrator lock does not end by itself; unlocking lifts a lock after failed logins at once', async () => {
    const user = await createUser('held', 'held-password');
    expect((await wms.put('/users', { ...user, locked: true })).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    vi.setSystemTime(Date.now() + 3 * 24 * 60 * 60_000);
    expectServerError(await loginReply(wms, 'held', 'held-password'), 401);
    vi.useRealTimers();
    expect((await userNamed('held')).locked).toBe(true);

    const other = await createUser('lifted', 'lifted-password');
    for (let i = 0; i < 5; i++) expectServerError(await loginReply(wms, 'lifted', `guess-${i}`), 401);
    const locked = await userNamed('lifted');
    expect(locked.locked).toBe(true);
    expect((await wms.put('/users', { ...locked, locked: false })).status).toBe(200);
    expect((await loginReply(wms, 'lifted', 'lifted-password')).status).toBe(200);
    expect(other.pKey).toBe(locked.pKey);
  });

  it('lockoutMinutes 0 keeps the old rule: locked until an administrator unlocks', async () => {
    const strict = await startTestAppliance({ auth: { lockoutMinutes: 0 } });
    try {
      expect((await strict.post('/users', { links: [], username: 'strict', password: 'strict-password' })).status).toBe(201);
      for (let i = 0; i < 5; i++) expectServerError(await loginReply(strict, 'strict', `guess-${i}`), 401);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      vi.setSystemTime(Date.now() + 7 * 24 * 60 * 60_000);
      expectServerError(await loginReply(strict, 'strict', 'strict-password'), 401);
      vi.useRealTimers();
      const event = (await strict.get('/v1/events/history?types=user.locked')).body.at(-1);
      expect(event.data.lockedUntil).toBeNull();
    } finally {
      vi.useRealTimers();
      await strict.close();
    }
  });
});

describe('attempts per client address', () => {
  let guarded: TestAppliance;
  beforeAll(async () => {
    // The default limit: 10 attempts a minute per address.
    guarded = await startTestAppliance({ auth: { loginAttemptsPerMinute: undefined } });
    expect((await guarded.post('/users', { links: [], username: 'target', password: 'target-password' })).status).toBe(201);
  });
  afterAll(() => guarded.close());

  it('after 10 failed attempts a minute, an address gets 429 with Retry-After, also for the right password', async () => {
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => loginReply(guarded, `guess-user-${i % 4}`, 'wrong-password')));
    expect(replies.filter((r) => r.status === 401)).toHaveLength(10);
    const throttled = replies.filter((r) => r.status === 429);
    expect(throttled).toHaveLength(30);
    for (const reply of throttled) {
      expectServerError(reply, 429);
      const wait = Number(reply.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(6);
      expect(reply.body.message).toMatch(/try again in \d+ s/);
    }
    expectServerError(await loginReply(guarded, 'target', 'target-password'), 429);
    // Nobody got locked by the anonymous flood: the guesses never reached an account.
    expect((await guarded.get('/users')).body.find((u: any) => u.username === 'target').locked).toBe(false);
  });

  it('successful logins give their attempt back', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    vi.setSystemTime(Date.now() + 2 * 60_000);
    for (let i = 0; i < 25; i++) expect((await loginReply(guarded, 'target', 'target-password')).status).toBe(200);
  });
});
