/**
 * The protocol service's credential provider (for `lanyard api --service
 * protocol` and `lanyard doctor`): the stored tokens of a server, refreshed
 * when they expire and once after a 401 — under the cross-process lock
 * (flow.ts refreshTokens). A DPoP-bound token (RFC 9449) goes out with a
 * proof of each exchange, made by the HTTP client when it sends it
 * (`perRequest`), carrying the nonce the server last handed out (kept for the
 * provider's life: the requests of one run); a `use_dpop_nonce` 401 is
 * answered by sending again with a proof carrying the new nonce, without
 * refreshing the token. No sign-in from here: without stored tokens the
 * request goes out bare.
 */
import { type CredentialProvider, fixedCredential } from '../auth/provider.js';
import type { Credential, CredentialRequest } from '../http/types.js';
import { parseBearerChallenge } from './discovery.js';
import { DpopNonces, proverOf, USE_DPOP_NONCE } from './dpop.js';
import { currentTokens, type ProtocolAuthDeps, refreshTokens } from './flow.js';

export async function protocolAuth(deps: ProtocolAuthDeps, serverUrl: string): Promise<CredentialProvider> {
  // The nonces of this provider's exchanges (the requests of one run), kept through a refresh.
  const nonces = deps.dpopNonces ?? new DpopNonces();
  const own: ProtocolAuthDeps = { ...deps, dpopNonces: nonces };
  let current = await currentTokens(own, serverUrl);
  if (!current) return fixedCredential({ scheme: 'none' }, 'anonymous');
  let prover = proverOf(current, own.clock, undefined, nonces);
  // Without a request, a DPoP-bound token carries no proof: it names the token, and is never sent (see CredentialProvider).
  const credential = async (request?: CredentialRequest): Promise<Credential> =>
    prover ? prover.credential(current!.accessToken, request) : { scheme: 'bearer', token: current!.accessToken };
  return {
    source: deps.credentials.store.kind,
    credential,
    expiresAt: () => current!.expiresAt,
    get perRequest() {
      return prover !== undefined;
    },
    // RFC 9449 §9: a refusal asking for a nonce the proof lacked is answered by a proof with it; the token stands.
    answered(answer) {
      const fresh = prover?.remember(answer) ?? false;
      return fresh && answer.status === 401 && parseBearerChallenge(answer.headers['www-authenticate'])?.error === USE_DPOP_NONCE;
    },
    async refresh(used) {
      if ('token' in used && used.token !== current!.accessToken) return credential();
      const next = await refreshTokens(own, current!);
      if (!next) return undefined;
      current = next;
      prover = proverOf(next, own.clock, prover, nonces);
      return credential();
    },
  };
}
