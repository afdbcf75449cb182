/**
 * Where a hosting credential comes from (auth.ts resolves it: LANYARD_TOKEN,
 * then WORKFLOW_TOKEN, then the stored token of the active account, else
 * anonymous), and `--basic-client`'s client_id:client_secret Basic
 * authentication for public data, which replaces all of these.
 */
import type { Credential } from '../http/client.js';

export type HostingCredentialSource = 'env:LANYARD_TOKEN' | 'env:WORKFLOW_TOKEN' | 'keychain' | 'file' | 'memory' | 'anonymous' | 'basic-client';

export interface ResolvedHostingCredential {
  credential: Credential;
  source: HostingCredentialSource;
  /** The account login when known (stored tokens). */
  login?: string;
}

/** `--basic-client`: the OAuth app's id and secret as Basic authentication (public data). */
export function basicClientCredential(clientId: string, clientSecret: string): ResolvedHostingCredential {
  return { credential: { scheme: 'basic', username: clientId, password: clientSecret }, source: 'basic-client' };
}
