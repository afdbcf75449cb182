/** The protocol service's registry entry (see ../entry-kit.ts): its base URL, credential, exec variables, sign-in advice and doctor probe. */
import { requireSetting } from '../../../core/config/settings.js';
import type { ServiceEntry } from '../entry-kit.js';

export const protocol: ServiceEntry = {
  /** Requests of `lanyard api` go to the origin of the server URL. */
  base: (settings, profile) => new URL(requireSetting(settings, 'protocol.serverUrl', profile)).origin,
  async provider(ctx, settings, profile) {
    // The stored tokens, refreshed when they expire and once more after a
    // 401 (as `protocol request` does); no sign-in from here: without
    // tokens the request goes out bare.
    const [{ protocolAuth }, { protocolDeps }] = await Promise.all([import('../../../core/protocol/credential.js'), import('./wiring.js')]);
    return protocolAuth(await protocolDeps(ctx), requireSetting(settings, 'protocol.serverUrl', profile));
  },
  exec: {
    signIn: 'lanyard auth login --server URL',
    unbound: 'sign in without DPoP for a bearer token: `LANYARD_DPOP=0 lanyard auth login --server URL` (or `--no-dpop`)',
    variables: (secret, settings, profile) => ({
      LANYARD_PROTOCOL_TOKEN: secret,
      LANYARD_PROTOCOL_URL: requireSetting(settings, 'protocol.serverUrl', profile),
    }),
  },
  signIn: ({ serverUrl, scopes }) => {
    const server = serverUrl ?? '<url>';
    if (scopes) return `run \`lanyard auth login --server ${server} --scopes "${scopes}"\``;
    return `run \`lanyard auth login --server ${server}\` to sign in again`;
  },
  refused(source) {
    const fix = 'sign in with `lanyard auth login --server <url>` (or run `lanyard protocol request`)';
    if (source === 'anonymous') return `authentication needed: no protocol token was sent; ${fix}`;
    return `the stored protocol token was refused after a refresh: ${fix.replace('sign in', 'sign in again')}`;
  },
  // A JSON-RPC ping to the server URL: a token that passes the server's check gets any answer but 401 (without a session, 400).
  doctor: {
    url: (settings, profile) => requireSetting(settings, 'protocol.serverUrl', profile),
    probe: (url) => ({
      method: 'POST',
      url,
      headers: { accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'ping' },
      accepted: (status) => status < 500 && status !== 403,
    }),
  },
};
