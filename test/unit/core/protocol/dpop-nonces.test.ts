/**
 * RFC 9449's nonces belong to the server that gave them (§8: the
 * authorization server's for its token requests, §9: a resource server's for
 * requests to it), are replaced when it gives a new one, and do not belong to
 * a key: DpopNonces and the signers that share it.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { DpopNonces, DpopProver, generateDpopKey, proverOf } from '../../../../src/core/protocol/dpop.js';

const now = () => Date.UTC(2026, 10, 28, 12);
const answer = (url: string, nonce: string) => ({ url, headers: { 'dpop-nonce': nonce } });
const nonceIn = async (proof: Promise<string>) => decodeJwt(await proof).nonce;

describe('DPoP nonces', () => {
  it("an authorization server and a protocol server on one origin each get their own nonce back, never the other's", async () => {
    const prover = new DpopProver(await generateDpopKey('ES256'), now);
    expect(prover.remember(answer('https://id.example/oauth/token', 'as-1'))).toBe(true);
    expect(prover.remember(answer('https://id.example/mcp', 'rs-1'))).toBe(true);
    expect(await nonceIn(prover.proof('POST', 'https://id.example/oauth/token'))).toBe('as-1');
    expect(await nonceIn(prover.proof('POST', 'https://id.example/mcp', 'at'))).toBe('rs-1');
    // A second server behind the same gateway has given none.
    expect(await nonceIn(prover.proof('POST', 'https://id.example/other/mcp', 'at'))).toBeUndefined();
    // The query and fragment are not part of the endpoint (htu).
    expect(await nonceIn(prover.proof('GET', 'https://id.example/mcp?x=1', 'at'))).toBe('rs-1');
  });

  it('a new nonce replaces the old one; the same one again is not new; a malformed one is ignored', async () => {
    const nonces = new DpopNonces();
    expect(nonces.remember({ 'dpop-nonce': 'n-1' }, 'https://rs.example/mcp')).toBe(true);
    expect(nonces.remember({ 'dpop-nonce': 'n-1' }, 'https://rs.example/mcp')).toBe(false);
    expect(nonces.remember({ 'dpop-nonce': 'bad "nonce"' }, 'https://rs.example/mcp')).toBe(false);
    expect(nonces.remember({ 'dpop-nonce': 'n-2' }, 'https://rs.example/mcp')).toBe(true);
    expect(nonces.get('https://rs.example/mcp')).toBe('n-2');
  });

  it('tokens bound to a new key (a sign-in again, a step-up) go on with the nonces the servers gave the old one', async () => {
    const nonces = new DpopNonces();
    const clock = { now };
    const first = proverOf({ tokenType: 'DPoP', dpopKey: await generateDpopKey('ES256') }, clock, undefined, nonces)!;
    first.remember(answer('https://rs.example/mcp', 'rs-1'));
    const next = proverOf({ tokenType: 'DPoP', dpopKey: await generateDpopKey('ES256') }, clock, first)!;
    expect(next).not.toBe(first);
    expect(await nonceIn(next.proof('POST', 'https://rs.example/mcp', 'at-2'))).toBe('rs-1');
    // A signer made for the token requests of a refresh, with the client's book, has the authorization server's.
    nonces.remember({ 'dpop-nonce': 'as-1' }, 'https://as.example/token');
    expect(await nonceIn(new DpopProver(next.key, now, nonces).proof('POST', 'https://as.example/token'))).toBe('as-1');
  });
});
