import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_PASSWORD, expectServerError, loginReply, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';

// What stands between a password guesser and an account: refusals that all read the
// same, failures counted however many logins run at once, a lock that ends by itself
// (longer each time) and holds against strangers only, and a per-address limit on
// attempts that spares the places a user signed in from. Over real HTTP.

let wms: TestAppliance;

beforeAll(async () => {
  // Logins here race each other for the threads that check passwords: they keep the
  // default scrypt cost, so that a check takes as long as on a box (the other test
  // appliances hash at 1024). The tests move the clock of this thread
  // (vi.useFakeTimers), which an HTTP thread would not share: a user's `locked`, as
  // GET /users shows it, would be computed with the real one there. One thread here.
  wms = await startTestAppliance({ auth: { passwordHashCost: 16384 }, server: { httpThread: false } });
});
afterAll(() => wms.close());
afterEach(() => vi.useRealTimers());

async function createUser(username: string, password: string, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await wms.post('/users', { links: [], username, password, ...fields });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

const userNamed = async (username: string) => ((await wms.get('/users')).body as any[]).find((u) => u.username === username);

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
    // Eight wrong guesses, then three right ones, all begun in one turn of the loop (as
    // logins racing each other arrive): each password check goes to the hashing threads
    // in that order and they take them in turn, so the right ones finish after the fifth
    // wrong one has locked the account. Each must see the lock, not the account as it
    // was when it arrived. Through the service, not over HTTP: how many requests a busy
    // box has read off their sockets by the time the right ones come is not what this
    // asks (the refusals over HTTP read the same: the tests above).
    const { login } = wms.app.module('users');
    const attempt = (password: string) =>
      login('swarmed', password, '198.51.100.7').then(
        () => 'token' as const,
        (err: Error) => err.constructor.name,
      );
    const outcomes = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => attempt(`guess-${i}`)),
      ...Array.from({ length: 3 }, () => attempt('swarmed-password')),
    ]);
    expect(outcomes.filter((o: string) => o === 'token')).toEqual([]);
    expect((await userNamed('swarmed')).locked).toBe(true);
    // Over HTTP too, once locked: the right password is refused like a wrong one.
    expectServerError(await loginReply(wms, 'swarmed', 'swarmed-password'), 401);
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

    // A successful login after it ends starts the count of lockouts again (and makes its
    // address known: the next guesses come from another one).
    vi.setSystemTime(Date.now() + 31 * 60_000);
    expect((await loginReply(wms, 'forgetful', 'forgetful-password')).status).toBe(200);
    for (let i = 0; i < 5; i++) expectServerError(await loginReply(wms, 'forgetful', `third-${i}`, '127.0.0.2'), 401);
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
    const strict = await startTestAppliance({ auth: { lockoutMinutes: 0 }, server: { httpThread: false } });
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

describe('known addresses: a stranger locks nobody out of the places they sign in from', () => {
  // Clients of their own on the loopback (test/support/appliance.ts, loginReply `from`).
  // The clock stands still in each test (the process's Date, which the appliance reads):
  // the per-address buckets do not refill while it runs, so the counts are exact.
  let box: TestAppliance;
  beforeAll(async () => {
    // The defaults: 10 attempts a minute per address, a lock of 15 minutes after 5 failures.
    box = await startTestAppliance({ auth: { loginAttemptsPerMinute: undefined } });
    // The administrator of the tests signs in from 127.0.0.1 before anyone guesses.
    await box.token();
  });
  afterAll(() => box.close());

  const lockEvents = async (username: string) => (await box.get(`/v1/events/history?types=user.locked&subjectKind=user&subject=${username}`)).body as any[];
  const lockedNow = async (username: string) => ((await box.get('/users')).body as any[]).find((u) => u.username === username).locked as boolean;
  const create = async (username: string, password: string) => expect((await box.post('/users', { links: [], username, password })).status).toBe(201);

  it('the administrator signs in from its desk while a stranger guesses its password: the stranger is throttled and locked out, the administrator is not', async () => {
    const DESK = '127.0.0.2';
    const STRANGER = '127.0.0.3';
    const NEW_PLACE = '127.0.0.4';
    const signedIn = await loginReply(box, 'admin', ADMIN_PASSWORD, DESK);
    expect(signedIn.status, signedIn.text).toBe(200);
    const deskToken = signedIn.body.access_token as string;
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });

    const guesses: Reply[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 4; i++) guesses.push(await loginReply(box, 'admin', `guess-${round}-${i}`, STRANGER));
      // The administrator signs in between the guesses and while more of them run.
      const [desk, ...burst] = await Promise.all([
        loginReply(box, 'admin', ADMIN_PASSWORD, DESK),
        ...Array.from({ length: 4 }, (_, i) => loginReply(box, 'admin', `burst-${round}-${i}`, STRANGER)),
      ]);
      expect(desk.status, desk.text).toBe(200);
      guesses.push(...burst);
    }
    // The stranger's address had 10 attempts; the first five failures locked the account
    // against strangers, the five after them were refused unchecked, the rest got 429.
    expect(guesses.filter((r) => r.status === 401)).toHaveLength(10);
    expect(guesses.filter((r) => r.status === 429)).toHaveLength(22);
    for (const reply of guesses) expectServerError(reply, reply.status);
    expect(await lockedNow('admin')).toBe(true);
    const locks = await lockEvents('admin');
    expect(locks).toHaveLength(1);
    expect(Date.parse(locks[0].data.lockedUntil) - Date.parse(locks[0].at)).toBe(15 * 60_000);

    // Two minutes on the stranger's address may try again: the right password is refused
    // like a wrong one, there and at any place the administrator never signed in from.
    vi.setSystemTime(Date.now() + 2 * 60_000);
    const wrong = await loginReply(box, 'admin', 'one-more-guess', STRANGER);
    const right = await loginReply(box, 'admin', ADMIN_PASSWORD, STRANGER);
    const elsewhere = await loginReply(box, 'admin', ADMIN_PASSWORD, NEW_PLACE);
    expectServerError(right, 401);
    expectServerError(elsewhere, 401);
    expect(right.body.message).toBe(wrong.body.message);
    expect(elsewhere.body.message).toBe(wrong.body.message);
    // At the desk: a token, and the one taken before the lock still works.
    expect((await loginReply(box, 'admin', ADMIN_PASSWORD, DESK)).status).toBe(200);
    expect((await box.get('/users', { token: deskToken })).status).toBe(200);
    expect(await lockEvents('admin')).toHaveLength(1);
  });

  it('a user who never signed in is guarded by the lock alone: five guesses lock it everywhere', async () => {
    await create('newcomer', 'newcomer-password');
    const STRANGER = '127.0.0.5';
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    for (let i = 0; i < 5; i++) expectServerError(await loginReply(box, 'newcomer', `guess-${i}`, STRANGER), 401);
    expect(await lockedNow('newcomer')).toBe(true);
    // 127.0.0.1 is where the administrator signs in: known for admin, not for newcomer.
    for (const from of [STRANGER, '127.0.0.6', '127.0.0.1']) {
      const refused = await loginReply(box, 'newcomer', 'newcomer-password', from);
      expectServerError(refused, 401);
      expect(refused.body.message).toBe('Bad credentials');
    }
    expect(await lockEvents('newcomer')).toHaveLength(1);
    // Once the lock has ended, its owner signs in (and that place is known from now on).
    vi.setSystemTime(Date.now() + 16 * 60_000);
    expect((await loginReply(box, 'newcomer', 'newcomer-password', '127.0.0.6')).status).toBe(200);
  });

  it("five failures in a row at a known address make it a stranger's again; other known addresses go on", async () => {
    await create('deskmate', 'deskmate-password');
    const SHARED = '127.0.0.7';
    const OWN = '127.0.0.8';
    expect((await loginReply(box, 'deskmate', 'deskmate-password', SHARED)).status).toBe(200);
    expect((await loginReply(box, 'deskmate', 'deskmate-password', OWN)).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    // Someone else at the shared address guesses: five times as a known address, which
    // locks nothing…
    for (let i = 0; i < 5; i++) expectServerError(await loginReply(box, 'deskmate', `guess-${i}`, SHARED), 401);
    expect(await lockedNow('deskmate')).toBe(false);
    expect(await lockEvents('deskmate')).toEqual([]);
    // …then as a stranger: five more lock the account against strangers, the shared address among them.
    for (let i = 5; i < 10; i++) expectServerError(await loginReply(box, 'deskmate', `guess-${i}`, SHARED), 401);
    expect(await lockedNow('deskmate')).toBe(true);
    expect(await lockEvents('deskmate')).toHaveLength(1);
    expectServerError(await loginReply(box, 'deskmate', 'deskmate-password', SHARED), 401);
    expect((await loginReply(box, 'deskmate', 'deskmate-password', OWN)).status).toBe(200);
  });

  it('an address that used up its attempts still signs in the users it signed in before, and no others', async () => {
    await create('shift-lead', 'shift-lead-password');
    await create('picker', 'picker-password');
    const TERMINAL = '127.0.0.9';
    expect((await loginReply(box, 'shift-lead', 'shift-lead-password', TERMINAL)).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const guesses = await Promise.all(Array.from({ length: 15 }, (_, i) => loginReply(box, `nobody-${i}`, 'whatever-password', TERMINAL)));
    expect(guesses.filter((r) => r.status === 401)).toHaveLength(10);
    expect(guesses.filter((r) => r.status === 429)).toHaveLength(5);
    // The known user's logins neither wait nor count, however many.
    for (let i = 0; i < 12; i++) expect((await loginReply(box, 'shift-lead', 'shift-lead-password', TERMINAL)).status).toBe(200);
    expectServerError(await loginReply(box, 'picker', 'picker-password', TERMINAL), 429);
  });

  it("a login refused for its address's attempts changes nothing: an ended lock is lifted by the next login let through", async () => {
    await create('patient', 'patient-password');
    const GUESSER = '127.0.0.10';
    const BUSY = '127.0.0.11';
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    for (let i = 0; i < 5; i++) expectServerError(await loginReply(box, 'patient', `guess-${i}`, GUESSER), 401);
    expect(await lockEvents('patient')).toHaveLength(1);
    vi.setSystemTime(Date.now() + 16 * 60_000);
    // The lock has ended. An address that has used up its attempts on other names tries the user.
    for (let i = 0; i < 10; i++) expectServerError(await loginReply(box, `someone-${i}`, 'whatever-password', BUSY), 401);
    const unlocks = async () => (await box.get('/v1/events/history?types=user.unlocked&subjectKind=user&subject=patient')).body as any[];
    const before = ((await box.get('/users')).body as any[]).find((u) => u.username === 'patient');
    expectServerError(await loginReply(box, 'patient', 'patient-password', BUSY), 429);
    expect(((await box.get('/users')).body as any[]).find((u) => u.username === 'patient')).toEqual(before);
    expect(await unlocks()).toEqual([]);
    // The next login that may try lifts it.
    expect((await loginReply(box, 'patient', 'patient-password', '127.0.0.12')).status).toBe(200);
    expect(await unlocks()).toHaveLength(1);
  });
});
