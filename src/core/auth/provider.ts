/**
 * The one shape of every credential (Octokit's auth strategies): a provider
 * yields the credential to send now and, when its service can, a new one
 * after the server refused it. The HTTP client's auth hook (http/auth-hook.ts)
 * is the only caller of `refresh`: 401 → refresh → retry once, in one place.
 *
 * Each service implements it (hosting/auth.ts, protocol/credential.ts,
 * health/token.ts, echo/credentials.ts) and decides, in core, where the
 * credential comes from (environment before store), how it is stored and
 * forgotten, and how it is refreshed (under the cross-process lock).
 */
import type { Credential, CredentialProvider, RequestSpec } from '../http/types.js';

export type { CredentialProvider } from '../http/types.js';

/** A credential that cannot be refreshed (environment tokens, API keys, Basic client credentials, anonymous). */
export function fixedCredential(credential: Credential, source: string, expiresAt?: number): CredentialProvider {
  return { source, credential: async () => credential, ...(expiresAt !== undefined ? { expiresAt: () => expiresAt } : {}) };
}

/** Whether two credentials are the same secret (the refresh hook compares the one a request used). */
export function sameCredential(a: Credential | undefined, b: Credential | undefined): boolean {
  return JSON.stringify(a ?? { scheme: 'none' }) === JSON.stringify(b ?? { scheme: 'none' });
}

/** A request's credential fields from either a fixed credential or a provider. */
export function authFields(c: Credential | CredentialProvider): Pick<RequestSpec, 'auth' | 'credential'> {
  return 'scheme' in c ? { credential: c } : { auth: c };
}
