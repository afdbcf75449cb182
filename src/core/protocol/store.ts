/**
 * Protocol credentials in the credential store (keychain or 0600 file):
 *   protocol:<server URL>          tokens of one protocol server (JSON)
 *   protocol-client:<issuer>       Lanyard's client identity at one authorization server (JSON)
 */
import type { CredentialStore } from '../deps.js';
import { accountKey } from '../credentials/accounts.js';
import type { ClientIdentity } from './registration.js';
import type { TokenSet } from './token.js';
import type { DpopKey } from './dpop.js';

export interface StoredTokens extends TokenSet {
  readonly server: string;
  readonly issuer: string;
  readonly tokenEndpoint: string;
  /** RFC 8707 resource the tokens were requested for, when the server published one. */
  readonly resource?: string;
  readonly grant: 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'device_code';
  readonly obtainedAt: number;
  /** The key a DPoP-bound token (tokenType DPoP) is bound to (RFC 9449); its private half is a secret. */
  readonly dpopKey?: DpopKey;
  /** Workload identity: where the sign-in read the platform's JWT (never the JWT itself), to read it again for a renewal. */
  readonly workloadTokenFrom?: WorkloadTokenSource;
}

/** Where a workload's JWT (RFC 7523 assertion) is read: a file the platform rotates, or an environment variable. */
export type WorkloadTokenSource = { readonly file: string } | { readonly env: string };

const TOKENS = 'protocol';
const CLIENT = 'protocol-client';

/** The credential-store account of a server's tokens. */
export const protocolTokensAccount = (serverKey: string): string => accountKey(TOKENS, serverKey);

export class ProtocolCredentials {
  /**
   * Registrations a token proved while this store was open (issuer and client
   * id): the authorization endpoint need not be asked about them again. Kept
   * for the store's life only — a registration proven by an earlier run may
   * have been dropped by the server since.
   */
  readonly #proven = new Set<string>();

  constructor(readonly store: CredentialStore) {}

  /** Marks a registration a token request just proved. */
  markProven(issuer: string, clientId: string): void {
    this.#proven.add(`${issuer} ${clientId}`);
  }

  /** Whether a token request proved the registration while this store was open. */
  isProven(issuer: string, clientId: string): boolean {
    return this.#proven.has(`${issuer} ${clientId}`);
  }

  async tokens(serverKey: string): Promise<StoredTokens | undefined> {
    return parse<StoredTokens>(await this.store.get(protocolTokensAccount(serverKey)), (v) => typeof v.accessToken === 'string');
  }

  async saveTokens(t: StoredTokens): Promise<void> {
    await this.store.set(accountKey(TOKENS, t.server), JSON.stringify(t));
  }

  async deleteTokens(serverKey: string): Promise<boolean> {
    return this.store.delete(accountKey(TOKENS, serverKey));
  }

  async client(issuer: string): Promise<ClientIdentity | undefined> {
    return parse<ClientIdentity>(await this.store.get(accountKey(CLIENT, issuer)), (v) => typeof v.clientId === 'string');
  }

  async saveClient(issuer: string, c: ClientIdentity): Promise<void> {
    await this.store.set(accountKey(CLIENT, issuer), JSON.stringify(c));
  }

  async deleteClient(issuer: string): Promise<boolean> {
    return this.store.delete(accountKey(CLIENT, issuer));
  }

  /** Server keys with stored tokens. */
  async servers(): Promise<string[]> {
    return (await this.store.list()).filter((a) => a.startsWith(TOKENS + ':')).map((a) => a.slice(TOKENS.length + 1));
  }
}

function parse<T>(raw: string | undefined, ok: (v: Record<string, unknown>) => boolean): T | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    return v && typeof v === 'object' && ok(v) ? (v as T) : undefined;
  } catch {
    return undefined;
  }
}
