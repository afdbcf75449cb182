import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../fakes/clock.js';
import { pollForDeviceToken } from '../../../../src/core/auth/device-poll.js';
import { OAuthResponseError } from '../../../../src/core/auth/device-authorization.js';
import { deviceFlowError } from '../../../../src/core/hosting/device-flow.js';
import type { TokenSet } from '../../../../src/core/hosting/oauth.js';
import type { Remedy } from '../../../../src/core/errors.js';
import { AuthRequiredError, CancelledError, LanyardError, NetworkError } from '../../../../src/core/errors.js';

const TOKEN: TokenSet = { accessToken: 'lyo_token', tokenType: 'bearer', scopes: ['repo'] };
const AGAIN: Remedy = { kind: 'sign-in', service: 'protocol', serverUrl: 'https://mcp.example', again: true };
const oauthErr = (error: string, extra: Record<string, string> = {}) => new OAuthResponseError({ error, ...extra }, 200);

/** A scripted token endpoint: each poll takes the next answer and records the monotonic time. */
function script(clock: FakeClock, answers: Array<Error | TokenSet>) {
  const times: number[] = [];
  return {
    times,
    poll: async () => {
      times.push(clock.monotonic());
      const a = answers.shift();
      if (!a) throw new Error('polled too often');
      if (a instanceof Error) throw a;
      return a;
    },
  };
}

describe('pollForDeviceToken', () => {
  it('waits the full interval before every poll, keeps polling while pending', async () => {
    const clock = new FakeClock();
    const s = script(clock, [oauthErr('authorization_pending'), oauthErr('authorization_pending'), TOKEN]);
    await expect(pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 900, poll: s.poll })).resolves.toBe(TOKEN);
    expect(s.times).toEqual([5000, 10000, 15000]);
  });

  it('slow_down without an interval adds 5 s, and the new interval sticks', async () => {
    const clock = new FakeClock();
    const s = script(clock, [oauthErr('slow_down'), oauthErr('authorization_pending'), oauthErr('authorization_pending'), TOKEN]);
    await pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 900, poll: s.poll });
    expect(s.times).toEqual([5000, 15000, 25000, 35000]);
  });

  it('slow_down with an interval in the response uses that interval from then on', async () => {
    const clock = new FakeClock();
    const s = script(clock, [oauthErr('slow_down', { interval: '12' }), oauthErr('slow_down', { interval: '17' }), oauthErr('authorization_pending'), TOKEN]);
    await pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 900, poll: s.poll });
    expect(s.times).toEqual([5000, 17000, 34000, 51000]);
  });

  it('measures the interval from the previous answer (a slow answer does not shorten the next wait)', async () => {
    const clock = new FakeClock();
    const times: number[] = [];
    let n = 0;
    const poll = async () => {
      times.push(clock.monotonic());
      clock.advance(3000); // the server takes 3 s to answer
      if (++n < 3) throw oauthErr('authorization_pending');
      return TOKEN;
    };
    await pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 900, poll });
    expect(times).toEqual([5000, 13000, 21000]);
  });

  it('stops at expires_in with "expired" (exit-4 error) without polling past it', async () => {
    const clock = new FakeClock();
    const s = script(
      clock,
      Array.from({ length: 10 }, () => oauthErr('authorization_pending')),
    );
    const err = await pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 22, poll: s.poll }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthRequiredError);
    expect((err as Error).message).toMatch(/expired/);
    expect(s.times).toEqual([5000, 10000, 15000, 20000]);
    expect(clock.monotonic()).toBe(22000);
  });

  it.each(['expired_token', 'token_expired'])('%s means expired', async (code) => {
    const clock = new FakeClock();
    const err = await pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 900, poll: script(clock, [oauthErr(code)]).poll }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AuthRequiredError);
    expect((err as Error).message).toMatch(/expired/);
  });

  it('access_denied: cancelled by the user (exit-4 error)', async () => {
    const clock = new FakeClock();
    const err = await pollForDeviceToken({
      again: AGAIN,
      clock,
      interval: 5,
      expiresIn: 900,
      poll: script(clock, [oauthErr('authorization_pending'), oauthErr('access_denied')]).poll,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthRequiredError);
    expect((err as Error).message).toMatch(/cancelled by the user/);
  });

  it.each([
    ['incorrect_device_code', /device code/],
    ['unsupported_grant_type', /grant type/],
  ])('%s gives a clear message', async (code, msg) => {
    const clock = new FakeClock();
    const err = await pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 900, poll: script(clock, [oauthErr(code)]).poll }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LanyardError);
    expect((err as Error).message).toMatch(msg);
  });

  it('a service adds its own final errors (the code host: device_flow_disabled, incorrect_client_credentials); the standard ones stay', async () => {
    for (const [code, msg] of [
      ['device_flow_disabled', /not enabled/],
      ['incorrect_client_credentials', /client id/],
      ['access_denied', /cancelled by the user/],
    ] as const) {
      const clock = new FakeClock();
      const err = await pollForDeviceToken({
        again: AGAIN,
        serviceError: (e) => (e.error === 'access_denied' ? undefined : deviceFlowError(e)),
        clock,
        interval: 5,
        expiresIn: 900,
        poll: script(clock, [oauthErr(code)]).poll,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LanyardError);
      expect((err as Error).message).toMatch(msg);
    }
  });

  it('retries a transient network error instead of failing', async () => {
    const clock = new FakeClock();
    const events: string[] = [];
    const s = script(clock, [
      new NetworkError('POST', 'http://x/login/oauth/access_token', Object.assign(new Error('reset'), { code: 'ECONNRESET' })),
      oauthErr('authorization_pending'),
      TOKEN,
    ]);
    await expect(pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 900, poll: s.poll, onEvent: (e) => events.push(e.kind) })).resolves.toBe(
      TOKEN,
    );
    expect(events).toEqual(['network_error', 'pending']);
    expect(s.times).toEqual([5000, 10000, 15000]);
  });

  it('Ctrl-C while waiting cancels at once', async () => {
    const clock = new FakeClock(undefined, { autoAdvance: false });
    const ac = new AbortController();
    const s = script(clock, []);
    const p = pollForDeviceToken({ again: AGAIN, clock, interval: 5, expiresIn: 900, poll: s.poll, signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(CancelledError);
    expect(s.times).toEqual([]);
  });
});
