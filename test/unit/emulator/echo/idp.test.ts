/** The emulator's identity provider: authorization-code + PKCE rules, over HTTP in-process. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startEmulator, type Emulator } from '../../../../src/emulator/server.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => emu?.close());

const CLIENT = 'lanyard-cli.apps.lanyard.test';
const REDIRECT = 'http://127.0.0.1:45678/callback';
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

function authParams(over: Record<string, string | undefined> = {}): URLSearchParams {
  const p: Record<string, string | undefined> = {
    client_id: CLIENT,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid email',
    state: 'st-1',
    nonce: 'no-1',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...over,
  };
  return new URLSearchParams(Object.entries(p).filter((e): e is [string, string] => e[1] !== undefined));
}

async function signIn(over: Record<string, string> = {}): Promise<URL> {
  const body = authParams();
  body.set('email', 'ada@lanyard.test');
  body.set('password', 'ada-password');
  body.set('action', 'allow');
  for (const [k, v] of Object.entries(over)) body.set(k, v);
  const res = await fetch(`${emu.url}/idp/authorize`, { method: 'POST', body, redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

const token = (form: Record<string, string>) =>
  fetch(`${emu.url}/idp/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: CLIENT, redirect_uri: REDIRECT, code_verifier: VERIFIER, ...form }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));

describe('identity provider', () => {
  it('refuses unknown clients and non-loopback redirect URIs on the page, without redirecting', async () => {
    for (const over of [{ client_id: 'nobody' }, { redirect_uri: 'https://evil.example/cb' }]) {
      const res = await fetch(`${emu.url}/idp/authorize?${authParams(over)}`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/invalid_client|redirect_uri_mismatch/);
    }
  });

  it('requires PKCE S256 and the openid scope (errors sent back to the client)', async () => {
    for (const [over, error] of [
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ scope: 'email' }, 'invalid_scope'],
    ] as const) {
      const res = await fetch(`${emu.url}/idp/authorize?${authParams(over)}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const loc = new URL(res.headers.get('location')!);
      expect([loc.searchParams.get('error'), loc.searchParams.get('state')]).toEqual([error, 'st-1']);
    }
  });

  it('shows a sign-in page, refuses a wrong password, and redirects with a code and the state', async () => {
    const page = await fetch(`${emu.url}/idp/authorize?${authParams()}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('name="email"');
    expect(html).toContain('name="password"');
    const body = authParams();
    body.set('email', 'ada@lanyard.test');
    body.set('password', 'wrong');
    body.set('action', 'allow');
    const wrong = await fetch(`${emu.url}/idp/authorize`, { method: 'POST', body, redirect: 'manual' });
    expect(wrong.status).toBe(401);
    const loc = await signIn();
    expect(loc.origin + loc.pathname).toBe(REDIRECT);
    expect(loc.searchParams.get('state')).toBe('st-1');
    expect(loc.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('exchanges a code once, only with the right verifier and redirect URI, for a verifiable ID token', async () => {
    const bad = await token({ code: (await signIn()).searchParams.get('code')!, code_verifier: 'x'.repeat(43) });
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const code = (await signIn()).searchParams.get('code')!;
    expect(await token({ code, redirect_uri: 'http://127.0.0.1:1/other' })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const code2 = (await signIn()).searchParams.get('code')!;
    const ok = await token({ code: code2 });
    expect(ok.status).toBe(200);
    expect(await token({ code: code2 })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const disc = (await (await fetch(`${emu.url}/idp/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
    expect(disc.issuer).toBe(`${emu.url}/idp`);
    const { payload } = await jwtVerify(ok.body.id_token!, createRemoteJWKSet(new URL(disc.jwks_uri)), {
      issuer: disc.issuer,
      audience: CLIENT,
      currentDate: new Date(emu.clock.now()),
    });
    expect(payload).toMatchObject({ email: 'ada@lanyard.test', nonce: 'no-1', azp: CLIENT });
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
  });

  it('codes expire after 10 minutes of emulator time', async () => {
    const code = (await signIn()).searchParams.get('code')!;
    emu.clock.advance(601_000);
    expect(await token({ code })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});
