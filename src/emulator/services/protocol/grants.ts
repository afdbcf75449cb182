/** The three grants of the emulated token endpoint, after client authentication. */
import { DEFAULT_SCOPE, normScope, randomToken, s256, validScope, type EmuClient, type ProtocolState } from './state.js';
import type { ThirdPartyAuthServer } from './third-party.js';

export type GrantResult = { tokens: ReturnType<ProtocolState['issueTokens']> } | { status: number; error: string; description: string };

const fail = (error: string, description: string, status = 400): GrantResult => ({ status, error, description });

/** authorization_code: single use, bound to redirect_uri, PKCE S256 verified. */
export function codeGrant(state: ProtocolState, client: EmuClient, f: Record<string, string>, jkt?: string): GrantResult {
  const c = state.codes.get(f.code ?? '');
  if (!c || c.clientId !== client.client_id) return fail('invalid_grant', 'unknown authorization code');
  if (c.used) {
    state.revokeFamily(c.family);
    return fail('invalid_grant', 'authorization code already used; tokens issued with it are revoked');
  }
  if (c.expiresAt <= state.clock.now()) return fail('invalid_grant', 'authorization code expired');
  if (f.redirect_uri !== c.redirectUri) return fail('invalid_grant', 'redirect_uri differs from the authorization request');
  if (!f.code_verifier || !/^[A-Za-z0-9\-._~]{43,128}$/.test(f.code_verifier) || s256(f.code_verifier) !== c.codeChallenge) {
    state.stats.pkceFailed++;
    // A failed exchange spends the code: whoever holds it cannot go on guessing verifiers (OAuth 2.1 §4.1.3).
    state.codes.delete(f.code!);
    return fail('invalid_grant', 'PKCE verification failed: code_verifier does not match code_challenge; the code is no longer valid');
  }
  if (f.resource !== undefined && f.resource !== c.resource) return fail('invalid_target', 'resource differs from the authorization request');
  state.stats.pkceVerified++;
  c.used = true;
  return { tokens: state.issueTokens({ ...c, jkt }, c.family, client.grant_types.includes('refresh_token'), isPublic(client)) };
}

/** refresh_token: rotation; a used token is reuse and revokes the whole grant; third-party status checked. */
export function refreshGrant(state: ProtocolState, thirdParty: ThirdPartyAuthServer, client: EmuClient, f: Record<string, string>, jkt?: string): GrantResult {
  const t = state.refreshTokens.get(f.refresh_token ?? '');
  if (!t || t.clientId !== client.client_id) return fail('invalid_grant', 'unknown refresh token');
  if (t.used) {
    state.stats.refreshReuseDetected++;
    state.revokeFamily(t.family);
    return fail('invalid_grant', 'refresh token already used: the whole grant is revoked (reuse detected)');
  }
  if (t.revoked || t.expiresAt <= state.clock.now()) return fail('invalid_grant', 'refresh token revoked or expired');
  // RFC 9449 §5: a public client's refresh token is bound to its DPoP key.
  if (t.jkt !== undefined && t.jkt !== jkt) return fail('invalid_grant', 'the refresh token is bound to another DPoP key');
  if (t.thirdPartyToken) {
    state.stats.thirdPartyChecks++;
    if (!thirdParty.introspect(t.thirdPartyToken).active) return fail('invalid_grant', 'the third-party authorization behind this grant is no longer active');
  }
  const scope = normScope(f.scope) ?? t.scope;
  if (!scope.split(' ').every((s) => t.scope.split(' ').includes(s))) return fail('invalid_scope', 'a refresh may not widen the scope');
  if (f.resource !== undefined && f.resource !== t.resource) return fail('invalid_target', 'resource differs from the grant');
  t.used = true;
  return { tokens: state.issueTokens({ ...t, scope, jkt }, t.family, true, isPublic(client)) };
}

/** client_credentials: confidential clients only, within their registered scope. */
export function clientCredentialsGrant(state: ProtocolState, client: EmuClient, f: Record<string, string>, resourceUrl: string, jkt?: string): GrantResult {
  if (!client.client_secret && !client.public_key) return fail('unauthorized_client', 'client credentials need a confidential client');
  const scope = normScope(f.scope) ?? client.scope ?? DEFAULT_SCOPE;
  const allowed = client.scope?.split(' ');
  if (!validScope(scope) || (allowed && !scope.split(' ').every((s) => allowed.includes(s)))) return fail('invalid_scope', 'scope not allowed for this client');
  if (f.resource !== undefined && f.resource !== resourceUrl) return fail('invalid_target', `unknown resource ${f.resource}`);
  return { tokens: state.issueTokens({ clientId: client.client_id, scope, resource: f.resource, jkt }, randomToken('fam', 12), false, false) };
}

/** A client without a secret or key: its refresh tokens are bound to its DPoP key (RFC 9449 §5). */
export function isPublic(client: EmuClient): boolean {
  return !client.client_secret && !client.public_key;
}
