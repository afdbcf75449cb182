/**
 * The emulator's DPoP proof checks (RFC 9449 §4.3), with proofs made here with
 * jose and the emulator clock frozen: what passes, and each rule that refuses.
 */
import { createHash, randomUUID } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { EmulatorClock } from '../../../../src/emulator/clock.js';
import { DpopChecker } from '../../../../src/emulator/services/protocol/dpop.js';
import { ProtocolState } from '../../../../src/emulator/services/protocol/state.js';

const URL_ = 'http://127.0.0.1:9/mcp';
const TOKEN = 'ctxat_example';
const ath = createHash('sha256').update(TOKEN).digest('base64url');

let clock: EmulatorClock;
let checker: DpopChecker;
let keys: Awaited<ReturnType<typeof generateKeyPair>>;

beforeEach(async () => {
  clock = new EmulatorClock();
  clock.freeze(true);
  checker = new DpopChecker(new ProtocolState(clock));
  keys = await generateKeyPair('ES256', { extractable: true });
});

async function proof(claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ htm: 'POST', htu: `${URL_}?q=1`, jti: randomUUID(), ath, iat: Math.floor(clock.now() / 1000), ...claims })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: await exportJWK(keys.publicKey), ...header })
    .sign(keys.privateKey);
}

const check = (p: string | undefined, requireNonce = false) => checker.check('resource', p, { method: 'post', url: URL_, accessToken: TOKEN, requireNonce });

describe('DPoP proofs at the emulator', () => {
  it('accepts a good proof and binds to the RFC 7638 thumbprint of its key; the same proof again is a replay', async () => {
    const p = await proof();
    expect(await check(p)).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey), 'sha256') });
    expect(await check(p)).toMatchObject({ error: 'invalid_dpop_proof', description: expect.stringMatching(/replay/) });
  });

  it.each([
    ['no proof', async () => undefined, /required/],
    ['typ', async () => proof({}, { typ: 'JWT' }), /typ/],
    ['htm', async () => proof({ htm: 'GET' }), /htm/],
    ['htu', async () => proof({ htu: 'http://127.0.0.1:9/other' }), /htu/],
    ['ath', async () => proof({ ath: 'x' }), /ath/],
    ['jti', async () => proof({ jti: undefined }), /jti/],
    ['iat too old', async () => proof({ iat: Math.floor(clock.now() / 1000) - 301 }), /iat/],
    ['iat ahead', async () => proof({ iat: Math.floor(clock.now() / 1000) + 61 }), /iat/],
    ['private key in jwk', async () => proof({}, { jwk: await exportJWK(keys.privateKey) }), /public/],
    ['signed by another key', async () => proof({}, { jwk: await exportJWK((await generateKeyPair('ES256')).publicKey) }), /verify/],
    ['two proofs', async () => `${await proof()}, ${await proof()}`, /one/],
  ])('refuses: %s', async (_name, make, why) => {
    expect(await check(await make())).toMatchObject({ error: 'invalid_dpop_proof', description: expect.stringMatching(why) });
  });

  it('after the emulator clock was advanced, a proof signed at the real time still passes (clients keep their own clocks)', async () => {
    const real = Math.floor(clock.now() / 1000);
    clock.advance(3_600_000);
    expect(await check(await proof({ iat: real }))).toHaveProperty('jkt');
    expect(await check(await proof({ iat: real - 301 }))).toMatchObject({ error: 'invalid_dpop_proof', description: expect.stringMatching(/iat/) });
  });

  it('demands the current nonce when asked to; a rotated nonce is stale', async () => {
    expect(await check(await proof(), true)).toMatchObject({ error: 'use_dpop_nonce' });
    const old = checker.nonces.resource;
    expect(await check(await proof({ nonce: old }), true)).toHaveProperty('jkt');
    checker.rotateNonces();
    expect(await check(await proof({ nonce: old }), true)).toMatchObject({ error: 'use_dpop_nonce', description: expect.stringMatching(/stale/) });
    expect(checker.state.stats.dpop.nonceChallenges.resource).toBe(2);
  });

  it("the authorization server and the resource demand nonces of their own: one's nonce is stale at the other (RFC 9449 §8, §9)", async () => {
    expect(checker.nonces.token).not.toBe(checker.nonces.resource);
    expect(await check(await proof({ nonce: checker.nonces.token }), true)).toMatchObject({ error: 'use_dpop_nonce' });
    expect(await check(await proof({ nonce: checker.nonces.resource }), true)).toHaveProperty('jkt');
  });
});
