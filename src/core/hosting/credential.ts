/**
 * Which credential a hosting call uses, by precedence: LANYARD_TOKEN, then
 * WORKFLOW_TOKEN, then the stored token of the active account, else anonymous.
 * (`--basic-client` replaces all of these with client_id:client_secret Basic
 * authentication for public data.)
 */
import type { Credential } from '../http/client.js';

export type HostingCredentialSource = 'env:LANYARD_TOKEN' | 'env:WORKFLOW_TOKEN' | 'keychain' | 'file' | 'memory' | 'anonymous' | 'basic-client';

export interface ResolvedHostingCredential {
  credential: Credential;
  source: HostingCredentialSource;
  /** The account login when known (stored tokens). */
  login?: string;
}

export interface StoredTokenLookup {
  /** The stored token of the active account for this API host, refreshed if due. */
  (apiUrl: string): Promise<{ token: string; login: string; source: HostingCredentialSource } | undefined>;
}

export async function resolveHostingCredential(
  env: Readonly<Record<string, string | undefined>>,
  apiUrl: string,
  stored?: StoredTokenLookup,
): Promise<ResolvedHostingCredential> {
  if (env.LANYARD_TOKEN) return { credential: { scheme: 'bearer', token: env.LANYARD_TOKEN }, source: 'env:LANYARD_TOKEN' };
  if (env.WORKFLOW_TOKEN) return { credential: { scheme: 'bearer', token: env.WORKFLOW_TOKEN }, source: 'env:WORKFLOW_TOKEN' };
  const s = stored ? await stored(apiUrl) : undefined;
  if (s) return { credential: { scheme: 'bearer', token: s.token }, source: s.source, login: s.login };
  return { credential: { scheme: 'none' }, source: 'anonymous' };
}

/** `--basic-client`: the OAuth app's id and secret as Basic authentication (public data). */
export function basicClientCredential(clientId: string, clientSecret: string): ResolvedHostingCredential {
  return { credential: { scheme: 'basic', username: clientId, password: clientSecret }, source: 'basic-client' };
}
