/**
 * The protocol service's credential provider (for `lanyard api --service
 * protocol`): the stored tokens of a server, refreshed when they expire and
 * once after a 401 — under the cross-process lock (flow.ts refreshTokens).
 * No sign-in from here: without stored tokens the request goes out bare.
 */
import { type CredentialProvider, fixedCredential } from '../auth/provider.js';
import type { Credential } from '../http/types.js';
import { currentTokens, type ProtocolAuthDeps, refreshTokens } from './flow.js';
import type { StoredTokens } from './store.js';

const bearer = (t: StoredTokens): Credential => ({ scheme: 'bearer', token: t.accessToken });

export async function protocolAuth(deps: ProtocolAuthDeps, serverUrl: string): Promise<CredentialProvider> {
  let current = await currentTokens(deps, serverUrl);
  if (!current) return fixedCredential({ scheme: 'none' }, 'anonymous');
  return {
    source: deps.credentials.store.kind,
    credential: async () => bearer(current!),
    expiresAt: () => current!.expiresAt,
    async refresh(used) {
      if (used.scheme === 'bearer' && used.token !== current!.accessToken) return bearer(current!);
      const next = await refreshTokens(deps, current!);
      if (!next) return undefined;
      current = next;
      return bearer(next);
    },
  };
}
