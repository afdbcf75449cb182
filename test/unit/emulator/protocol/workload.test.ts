/**
 * The emulator's workload identity grant (RFC 7523 §2.1), checked with JWTs
 * made here with jose: only its platform issuer's JWTs, for this
 * authorization server, unexpired on the emulator clock; tokens without a
 * refresh token.
 */
import { SignJWT, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { EmulatorClock } from '../../../../src/emulator/clock.js';
import { ProtocolState } from '../../../../src/emulator/services/protocol/state.js';
import { WorkloadIssuer } from '../../../../src/emulator/services/protocol/workload.js';

const BASE = 'http://127.0.0.1:9';

function setup() {
  const clock = new EmulatorClock();
  const state = new ProtocolState(clock);
  const issuer = new WorkloadIssuer(state, () => BASE);
  const client = state.clients.get('ctx-cli')!;
  return { clock, state, issuer, client };
}

describe('workload identity grant', () => {
  it("takes the platform issuer's JWT: tokens without a refresh token, the grant recorded", async () => {
    const { state, issuer, client } = setup();
    const r = await issuer.grant(client, { assertion: await issuer.mint('job-1', 60), resource: `${BASE}/mcp` }, `${BASE}/mcp`);
    expect(r).toMatchObject({ tokens: { token_type: 'Bearer', access_token: expect.any(String) } });
    expect((r as { tokens: { refresh_token?: string } }).tokens.refresh_token).toBeUndefined();
    expect(state.stats.workloadGrants.map((g) => g.subject)).toEqual(['job-1']);
  });

  it('refuses an expired JWT (emulator clock), one of another key, and one for another audience', async () => {
    const { clock, issuer, client } = setup();
    const expiring = await issuer.mint('job-1', 60);
    clock.advance(61_000);
    const other = await generateKeyPair('ES256');
    const now = Math.floor(clock.now() / 1000);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(`${BASE}/workload-issuer`)
      .setAudience(BASE)
      .setSubject('job-1')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(other.privateKey);
    for (const assertion of [expiring, forged, 'not-a-jwt']) {
      expect(await issuer.grant(client, { assertion }, `${BASE}/mcp`)).toMatchObject({ error: 'invalid_grant' });
    }
    const elsewhere = new WorkloadIssuer(new ProtocolState(clock), () => 'http://127.0.0.1:10');
    expect(await elsewhere.grant(client, { assertion: await issuer.mint('job-1', 60) }, `${BASE}/mcp`)).toMatchObject({ error: 'invalid_grant' });
  });
});
