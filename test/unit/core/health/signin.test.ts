import { describe, expect, it } from 'vitest';
import { runHealthSignIn, type HealthSignInOptions } from '../../../../src/core/health/signin.js';
import { EXPIRY_SKEW_MS, healthAccount, listHealthTokens } from '../../../../src/core/health/token.js';
import { CancelledError, OAuthError, TimeoutError, ValidationError } from '../../../../src/core/errors.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';

const AUTH_URL = 'https://login.example.com';

/** Counting bytes: every call gives the next run of values, so state and nonce differ and are known. */
function countingRandom() {
  let next = 0;
  return (n: number) => Uint8Array.from({ length: n }, () => next++ & 0xff);
}

/**
 * A browser as the identity provider would drive it: loads the redirect URI
 * (the receiver's relay page), then posts the fragment back the way the page's
 * script does. `answer` builds the fragment from the authorization request.
 */
function browser(answer: (req: URL) => Record<string, string>, seen: { url?: URL; page?: string } = {}) {
  return async (url: string) => {
    const req = new URL(url);
    seen.url = req;
    const redirect = req.searchParams.get('redirect_uri')!;
    // Not awaited by the flow: the browser answers while the receiver waits.
    void (async () => {
      seen.page = await (await fetch(redirect)).text();
      await fetch(redirect, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(redirect).origin },
        body: new URLSearchParams(answer(req)).toString(),
      });
    })();
  };
}

const granted = (req: URL) => ({
  access_token: 'eyJ.health.token',
  token_type: 'Bearer',
  expires_in: '3599',
  scope: 'user_impersonation',
  state: req.searchParams.get('state')!,
});

function options(over: Partial<HealthSignInOptions> & Pick<HealthSignInOptions, 'openUrl'>): HealthSignInOptions {
  return {
    authUrl: AUTH_URL,
    clientId: 'health-cid',
    clock: new FakeClock(undefined, { autoAdvance: false }),
    timeoutMs: 60_000,
    random: countingRandom(),
    ...over,
  };
}

async function refused(url: string): Promise<boolean> {
  return fetch(url).then(
    () => false,
    () => true,
  );
}

describe('runHealthSignIn', () => {
  it('sends an implicit-flow request with fresh state and nonce to a 127.0.0.1 receiver, and stores the token it gets back', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 24, 9, 0, 0), { autoAdvance: false });
    const store = new MemoryCredentialStore();
    const seen: { url?: URL; page?: string } = {};
    const rec = await runHealthSignIn(options({ clock, store, openUrl: browser(granted, seen) }));

    const q = seen.url!.searchParams;
    expect(seen.url!.origin + seen.url!.pathname).toBe('https://login.example.com/common/oauth2/authorize');
    expect(q.get('response_type')).toBe('token');
    expect(q.get('client_id')).toBe('health-cid');
    expect(q.get('scope')).toBe('user_impersonation');
    // 24 counting bytes each: the state is bytes 0..23, the nonce 24..47.
    expect(q.get('state')).toBe(Buffer.from(Array.from({ length: 24 }, (_, i) => i)).toString('base64url'));
    expect(q.get('nonce')).toBe(Buffer.from(Array.from({ length: 24 }, (_, i) => i + 24)).toString('base64url'));
    const redirect = new URL(q.get('redirect_uri')!);
    expect(redirect.hostname).toBe('127.0.0.1');
    expect(redirect.pathname).toBe('/callback');
    expect(seen.page).toContain('location.hash');

    expect(rec).toEqual({
      access_token: 'eyJ.health.token',
      token_type: 'Bearer',
      expires_at: clock.now() + 3599_000,
      obtained_at: clock.now(),
      scope: 'user_impersonation',
      client_id: 'health-cid',
    });
    expect(JSON.parse(store.data.get(healthAccount(AUTH_URL))!)).toEqual(rec);
    // The receiver is closed once the flow is over.
    expect(await refused(redirect.toString())).toBe(true);
  });

  it('returns the record without storing when no store is given, and passes a custom scope', async () => {
    const seen: { url?: URL } = {};
    const rec = await runHealthSignIn(options({ scope: 'openid user_impersonation', openUrl: browser(granted, seen) }));
    expect(rec.access_token).toBe('eyJ.health.token');
    expect(seen.url!.searchParams.get('scope')).toBe('openid user_impersonation');
  });

  it('refuses a response whose state is not the one sent, and stores nothing', async () => {
    const store = new MemoryCredentialStore();
    const err = await runHealthSignIn(options({ store, openUrl: browser((req) => ({ ...granted(req), state: 'forged' })) })).catch((e) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).error).toBe('state_mismatch');
    expect(store.data.size).toBe(0);
  });

  it('ends with the provider error when the user cancels (access_denied), and stores nothing', async () => {
    const store = new MemoryCredentialStore();
    const err = await runHealthSignIn(
      options({
        store,
        openUrl: browser((req) => ({
          error: 'access_denied',
          error_description: 'the user cancelled the sign-in',
          state: req.searchParams.get('state')!,
        })),
      }),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).error).toBe('access_denied');
    expect(store.data.size).toBe(0);
  });

  it('refuses a token response without expires_in or with another token type', async () => {
    const store = new MemoryCredentialStore();
    const noExpiry = await runHealthSignIn(
      options({
        store,
        openUrl: browser((req) => {
          const { expires_in: _, ...rest } = granted(req);
          return rest;
        }),
      }),
    ).catch((e) => e);
    expect((noExpiry as OAuthError).error).toBe('invalid_response');
    const mac = await runHealthSignIn(options({ store, openUrl: browser((req) => ({ ...granted(req), token_type: 'mac' })) })).catch((e) => e);
    expect((mac as OAuthError).error).toBe('invalid_response');
    expect(store.data.size).toBe(0);
  });

  it('times out on the injected clock when the browser never comes back, and closes the receiver', async () => {
    const clock = new FakeClock(undefined, { autoAdvance: false });
    let redirect = '';
    const flow = runHealthSignIn(
      options({
        clock,
        timeoutMs: 120_000,
        openUrl: (url) => {
          redirect = new URL(url).searchParams.get('redirect_uri')!;
        },
      }),
    );
    const outcome = flow.catch((e) => e);
    await new Promise((r) => setImmediate(r));
    while (!redirect) await new Promise((r) => setImmediate(r));
    clock.advance(119_999);
    await new Promise((r) => setImmediate(r));
    clock.advance(1);
    const err = await outcome;
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toMatch(/within 120 s/);
    expect(clock.sleeps).toEqual([120_000]);
    expect(await refused(redirect)).toBe(true);
  });

  it('ends with CancelledError when the signal aborts (Ctrl-C), and closes the receiver', async () => {
    const ac = new AbortController();
    let redirect = '';
    const flow = runHealthSignIn(
      options({
        clock: new FakeClock(undefined, { autoAdvance: false }),
        signal: ac.signal,
        openUrl: (url) => {
          redirect = new URL(url).searchParams.get('redirect_uri')!;
          setImmediate(() => ac.abort());
        },
      }),
    );
    const err = await flow.catch((e) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect(await refused(redirect)).toBe(true);
  });

  it('refuses a plain-HTTP sign-in host that is not loopback before sending the user anywhere', async () => {
    let opened = false;
    const err = await runHealthSignIn(
      options({
        authUrl: 'http://login.example.com',
        openUrl: () => {
          opened = true;
        },
      }),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(opened).toBe(false);
  });
});

describe('listHealthTokens', () => {
  it('lists each host once (the first store wins), judges expiry with the skew, and leaves a hand-stored token without expiry', async () => {
    const now = Date.UTC(2026, 10, 24, 9, 0, 0);
    const named = (kind: string) => Object.defineProperty(new MemoryCredentialStore(), 'kind', { value: kind });
    const keychain = named('keychain');
    const file = named('file');
    const rec = (token: string, expiresAt: number) =>
      JSON.stringify({ access_token: token, token_type: 'Bearer', expires_at: expiresAt, obtained_at: now - 1000 });
    keychain.data.set('health:login.example.com', rec('fresh', now + EXPIRY_SKEW_MS + 1));
    file.data.set('health:login.example.com', rec('shadowed', now + 3_600_000));
    file.data.set('health:other.example.com', rec('nearly', now + EXPIRY_SKEW_MS));
    file.data.set('health:plain.example.com', 'a-plain-token');
    file.data.set('hosting:github.example.com', 'not-health');

    const found = await listHealthTokens([keychain, file], now);
    expect(found.map((t) => [t.host, t.source, t.record.access_token, t.valid, t.expiresAt])).toEqual([
      ['login.example.com', 'keychain', 'fresh', true, now + EXPIRY_SKEW_MS + 1],
      ['other.example.com', 'file', 'nearly', false, now + EXPIRY_SKEW_MS],
      ['plain.example.com', 'file', 'a-plain-token', true, undefined],
    ]);
  });
});
