import { beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { FakeClock } from '../../../fakes/clock.js';
import {
  JwtFailure,
  matchRequirement,
  parseJwt,
  stripUrl,
  UnknownKidFailure,
  verifySignature,
  type TokenRequirement,
} from '../../../../src/emulator/services/echo/jwt-validate.js';
import { jwkSetDocument, KeyRing, x509MapDocument, type SigningKey } from '../../../../src/emulator/services/echo/keys.js';
import { Gateway } from '../../../../src/emulator/services/echo/gateway.js';
import { EchoState, SEED } from '../../../../src/emulator/services/echo/state.js';
import type { JwksCache } from '../../../../src/emulator/services/echo/jwks-cache.js';

const clock = new FakeClock(Date.UTC(2026, 2, 3, 4, 5, 6));
const nowSec = () => Math.floor(clock.now() / 1000);
const ISS = 'sa@proj.iam.example.test';
const base = () => ({ iss: ISS, sub: ISS, email: ISS, aud: 'echo.example.test', iat: nowSec(), exp: nowSec() + 3600 });

async function sign(key: SigningKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}
function failure(fn: () => unknown): JwtFailure {
  try {
    fn();
  } catch (err) {
    if (err instanceof JwtFailure) return err;
    throw err;
  }
  throw new Error('did not fail');
}
async function failureAsync(p: Promise<unknown>): Promise<JwtFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof JwtFailure)) throw new Error(`expected a JwtFailure, got ${String(err)}`);
  return err;
}

let rsa: SigningKey;
let rsa2: SigningKey;
let ec: SigningKey;
beforeAll(async () => {
  const ring = new KeyRing(() => clock.now());
  [rsa, rsa2, ec] = await Promise.all([ring.add(ISS, 'RS256'), ring.add('other@x.test', 'RS256'), ring.add(ISS, 'ES256')]);
});

describe('claim rules (parse step) with the gateway clock', () => {
  it('accepts exp up to 60 s in the past and nbf up to 60 s in the future', async () => {
    const t = await sign(rsa, { ...base(), exp: nowSec() - 60, nbf: nowSec() + 60 });
    expect(parseJwt(t, nowSec()).subject).toBe(ISS);
  });

  it('refuses exp 61 s in the past and nbf 61 s in the future', async () => {
    const expired = await sign(rsa, { ...base(), exp: nowSec() - 61 });
    expect(failure(() => parseJwt(expired, nowSec())).message).toBe('JWT validation failed: TIME_CONSTRAINT_FAILURE');
    const early = await sign(rsa, { ...base(), nbf: nowSec() + 61 });
    expect(failure(() => parseJwt(early, nowSec())).reason).toBe('TIME_CONSTRAINT_FAILURE');
  });

  it('expires a token as the injected clock moves', async () => {
    const t = await sign(rsa, { ...base(), exp: nowSec() + 10 });
    const c = new FakeClock(clock.now());
    expect(() => parseJwt(t, Math.floor(c.now() / 1000))).not.toThrow();
    c.advance(70_000);
    expect(() => parseJwt(t, Math.floor(c.now() / 1000))).not.toThrow();
    c.advance(1_000);
    expect(failure(() => parseJwt(t, Math.floor(c.now() / 1000))).reason).toBe('TIME_CONSTRAINT_FAILURE');
  });

  it('lets an e-mail issuer assert only itself', async () => {
    const t = await sign(rsa, { ...base(), sub: 'someone-else@example.test' });
    expect(failure(() => parseJwt(t, nowSec())).reason).toBe('BAD_SUBJECT');
    const url = await sign(rsa, { ...base(), iss: 'https://issuer.example.test', sub: '1234' });
    expect(parseJwt(url, nowSec()).subject).toBe('1234');
  });

  it('requires iss, aud and sub, a known alg and three parts', async () => {
    const { iss: _i, ...noIss } = base();
    const { aud: _a, ...noAud } = base();
    for (const claims of [noIss, noAud, { ...base(), aud: [] }, { ...base(), sub: undefined, iss: 'https://x' }, { ...base(), exp: 'soon' }]) {
      expect(failure(() => parseJwt('', 0)).reason).toBe('BAD_FORMAT');
      const t = await sign(rsa, claims as Record<string, unknown>);
      expect(failure(() => parseJwt(t, nowSec())).reason, JSON.stringify(claims)).toBe('BAD_FORMAT');
    }
    const hs = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(base())).toString('base64url')}.c2ln`;
    expect(failure(() => parseJwt(hs, nowSec())).reason).toBe('BAD_FORMAT');
    expect(failure(() => parseJwt('a.b', nowSec())).reason).toBe('BAD_FORMAT');
  });

  it('reads audiences as a string or an array', async () => {
    const t = await sign(rsa, { ...base(), aud: ['a.example', 'https://b.example/'] });
    expect(parseJwt(t, nowSec()).audiences).toEqual(['a.example', 'https://b.example/']);
  });
});

describe('issuer and audience (steps 2 and 3)', () => {
  const reqs: TokenRequirement[] = [
    { name: 'vendor_jwt', issuer: 'https://jwt.example.test/', jwksUri: 'u1', audiences: ['echo.example.test'] },
    { name: 'service_account', issuer: ISS, jwksUri: 'u2', audiences: ['https://echo.example.test/', 'other.example.test'] },
  ];
  it('strips scheme and trailing slash from issuers and audiences', async () => {
    expect(stripUrl('https://a.b/c//')).toBe('a.b/c');
    const t = parseJwt(await sign(rsa, { ...base(), aud: 'http://echo.example.test/' }), nowSec());
    expect(matchRequirement(t, reqs).name).toBe('service_account');
    const j = parseJwt(await sign(rsa, { ...base(), iss: 'jwt.example.test', sub: 'x' }), nowSec());
    expect(matchRequirement(j, reqs).name).toBe('vendor_jwt');
  });
  it('401 for an unknown issuer, 403 for an audience not allowed', async () => {
    const wrongIss = parseJwt(await sign(rsa, { ...base(), iss: 'x@y.test', sub: 'x@y.test' }), nowSec());
    expect(failure(() => matchRequirement(wrongIss, reqs))).toMatchObject({ status: 401, reason: 'Issuer not allowed' });
    const wrongAud = parseJwt(await sign(rsa, { ...base(), aud: ['nope.example.test', 'echo.example.test.evil'] }), nowSec());
    expect(failure(() => matchRequirement(wrongAud, reqs))).toMatchObject({ status: 403, reason: 'Audience not allowed' });
  });
});

describe('signature (step 4) against both JWKS formats', () => {
  it('verifies RS256 with a JWK set and with an X.509 map', async () => {
    const t = parseJwt(await sign(rsa, base()), nowSec());
    await verifySignature(t, jwkSetDocument([rsa2, rsa]));
    await verifySignature(t, x509MapDocument([rsa2, rsa]));
  });
  it('ES256 only with JWK sets', async () => {
    const t = parseJwt(await sign(ec, base()), nowSec());
    await verifySignature(t, jwkSetDocument([rsa, ec]));
    expect(await failureAsync(verifySignature(t, x509MapDocument([rsa, ec])))).toMatchObject({ reason: 'KEY_RETRIEVAL_ERROR' });
  });
  it('unknown kid → KEY_RETRIEVAL_ERROR; wrong key → BAD_SIGNATURE', async () => {
    const unknown = parseJwt(await sign(rsa, base(), { kid: 'not-a-kid' }), nowSec());
    for (const doc of [jwkSetDocument([rsa]), x509MapDocument([rsa])]) {
      expect(await failureAsync(verifySignature(unknown, doc))).toBeInstanceOf(UnknownKidFailure);
    }
    const forged = parseJwt(await sign(rsa2, base(), { kid: rsa.kid }), nowSec());
    for (const doc of [jwkSetDocument([rsa]), x509MapDocument([rsa])]) {
      expect(await failureAsync(verifySignature(forged, doc))).toMatchObject({ reason: 'BAD_SIGNATURE' });
    }
    const noKid = parseJwt(await sign(rsa2, base(), { kid: undefined }), nowSec());
    expect(await failureAsync(verifySignature(noKid, jwkSetDocument([rsa])))).toMatchObject({ reason: 'BAD_SIGNATURE' });
  });
});

describe('gateway key cache refresh', () => {
  it('fetches the JWKS again once when the cached one lacks the kid', async () => {
    const state = new EchoState(
      () => clock.now(),
      () => 'http://127.0.0.1:1',
    );
    state.definitions.service_account = { issuer: ISS, keyOwner: ISS, jwksFormat: 'x509', audiences: [SEED.audience] };
    const docs = [x509MapDocument([rsa2]), x509MapDocument([rsa2, rsa])];
    const calls: boolean[] = [];
    const cache = {
      get: async (_uri: string, fresh = false) => {
        calls.push(fresh);
        return { doc: docs[Math.min(calls.length - 1, 1)], fetched: fresh };
      },
    };
    const gw = new Gateway(state, cache as unknown as JwksCache, nowSec);
    const t = await sign(rsa, { ...base(), aud: SEED.audience });
    expect((await gw.authenticate('/auth/info/vendorjwt', t)).subject).toBe(ISS);
    expect(calls).toEqual([false, true]);
  });
});
