/** The emulator's refresh grant with DPoP: a public client's refresh token is bound to its key (RFC 9449 §5), a confidential client's is not. */
import { describe, expect, it } from 'vitest';
import { EmulatorClock } from '../../../../src/emulator/clock.js';
import { refreshGrant } from '../../../../src/emulator/services/protocol/grants.js';
import { ProtocolState } from '../../../../src/emulator/services/protocol/state.js';
import { ThirdPartyAuthServer } from '../../../../src/emulator/services/protocol/third-party.js';

function setup(clientId: string) {
  const clock = new EmulatorClock();
  const state = new ProtocolState(clock);
  const thirdParty = new ThirdPartyAuthServer(clock, () => 'http://127.0.0.1:9/cb');
  const client = state.clients.get(clientId)!;
  const t = state.issueTokens({ clientId, scope: 'tools:read', jkt: 'key-a' }, 'fam', true, !client.client_secret);
  return { state, thirdParty, client, t };
}

describe('refresh of DPoP-bound tokens', () => {
  it('public client: the refresh needs a proof of the same key; the new tokens are DPoP again', () => {
    const { state, thirdParty, client, t } = setup('ctx-cli');
    expect(t.token_type).toBe('DPoP');
    expect(refreshGrant(state, thirdParty, client, { refresh_token: t.refresh_token! }, undefined)).toMatchObject({ error: 'invalid_grant' });
    expect(refreshGrant(state, thirdParty, client, { refresh_token: t.refresh_token! }, 'key-b')).toMatchObject({ error: 'invalid_grant' });
    const ok = refreshGrant(state, thirdParty, client, { refresh_token: t.refresh_token! }, 'key-a');
    expect(ok).toMatchObject({ tokens: { token_type: 'DPoP' } });
  });

  it('confidential client: the refresh token is not bound', () => {
    const { state, thirdParty, client, t } = setup('ctx-web');
    expect(refreshGrant(state, thirdParty, client, { refresh_token: t.refresh_token! }, 'key-b')).toMatchObject({ tokens: { token_type: 'DPoP' } });
  });
});
