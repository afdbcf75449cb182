/**
 * State of the echo service: API keys, service accounts, the gateway's
 * security definitions, and the users and clients of the identity provider
 * and the app platform. Everything seeded is documented in the README and
 * listed by `GET /_emulator/info`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EchoSecurityDefinition } from '../../../shared/echo.js';

export const SEED = {
  apiKeys: [
    { key: 'AIzaSyLanyardEmulatorEchoKey0000000001', name: 'default' },
    { key: 'AIzaSyLanyardEmulatorEchoKey0000000002', name: 'second' },
  ],
  clientProject: 'lanyard-client',
  accountDomain: 'lanyard-client.iam.lanyard.test',
  /** Issuer of vendor_jwt (keys: JWK set by default). */
  jwtClient: 'jwt-client@lanyard-client.iam.lanyard.test',
  /** Issuer of service_account (keys: X.509 map by default). */
  serviceAccount: 'echo-client@lanyard-client.iam.lanyard.test',
  /** Issuer of platform_default_service_account (keys: X.509 map by default). */
  defaultServiceAccount: 'lanyard-client@appspot.lanyard.test',
  /** Key owners of tokens the emulator itself issues. */
  idpSigner: 'idp-signer@system.lanyard.test',
  appPlatformSigner: 'securetoken@system.lanyard.test',
  audience: 'echo-api.lanyard.test',
  idpClients: [
    { clientId: 'lanyard-cli.apps.lanyard.test', accepted: true },
    { clientId: 'other-app.apps.lanyard.test', accepted: false },
  ],
  projects: [
    { id: 'lanyard-demo', accepted: true },
    { id: 'lanyard-other', accepted: false },
  ],
  users: [
    { email: 'ada@lanyard.test', password: 'ada-password', name: 'Ada Lovelace' },
    { email: 'grace@lanyard.test', password: 'grace-password', name: 'Grace Hopper' },
  ],
} as const;

export type TokenDefinition = Exclude<EchoSecurityDefinition, 'api_key'>;
export type JwksFormat = 'jwk' | 'x509';

export interface DefinitionConfig {
  issuer: string;
  /** Whose keys sign these tokens (service account e-mail or a system signer). */
  keyOwner: string;
  jwksFormat: JwksFormat;
  /** When set, used instead of the emulator's own JWKS URL. */
  jwksUriOverride?: string;
  audiences: string[];
}

export interface ServiceAccount {
  email: string;
  projectId: string;
  kind: 'user-managed' | 'default';
  uniqueId: string;
}

export interface User {
  email: string;
  password: string;
  name: string;
}

export interface AuthCode {
  code: string;
  providerKey: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce?: string;
  scope: string;
  email: string;
  expiresAt: number;
}

/** A stable numeric-looking subject per (namespace, e-mail), like real providers hand out. */
export function subjectFor(namespace: string, email: string): string {
  const h = createHash('sha256').update(`${namespace}\n${email}`).digest();
  return '1' + (h.readBigUInt64BE(0) % 10n ** 20n).toString().padStart(20, '0');
}

export class EchoState {
  apiKeys = new Map<string, { key: string; name: string; createdAt: number }>();
  accounts = new Map<string, ServiceAccount>();
  definitions = {} as Record<TokenDefinition, DefinitionConfig>;
  users = new Map<string, User>();
  codes = new Map<string, AuthCode>();
  idpClients = new Map<string, { clientId: string; accepted: boolean }>();
  projects = new Map<string, { id: string; accepted: boolean }>();

  constructor(
    private readonly now: () => number,
    private readonly baseUrl: () => string,
  ) {
    this.reset();
  }

  reset(): void {
    const now = this.now();
    this.apiKeys = new Map(SEED.apiKeys.map((k) => [k.key, { ...k, createdAt: now }]));
    this.accounts = new Map();
    this.addAccount(SEED.jwtClient, 'user-managed');
    this.addAccount(SEED.serviceAccount, 'user-managed');
    this.addAccount(SEED.defaultServiceAccount, 'default');
    this.users = new Map(SEED.users.map((u) => [u.email, { ...u }]));
    this.codes = new Map();
    this.idpClients = new Map(SEED.idpClients.map((c) => [c.clientId, { ...c }]));
    this.projects = new Map(SEED.projects.map((p) => [p.id, { ...p }]));
    const acceptedClients = SEED.idpClients.filter((c) => c.accepted).map((c) => c.clientId);
    const project = SEED.projects.find((p) => p.accepted)!.id;
    this.definitions = {
      vendor_jwt: { issuer: SEED.jwtClient, keyOwner: SEED.jwtClient, jwksFormat: 'jwk', audiences: [SEED.audience] },
      platform_default_service_account: {
        issuer: SEED.defaultServiceAccount,
        keyOwner: SEED.defaultServiceAccount,
        jwksFormat: 'x509',
        audiences: [SEED.audience],
      },
      service_account: { issuer: SEED.serviceAccount, keyOwner: SEED.serviceAccount, jwksFormat: 'x509', audiences: [SEED.audience] },
      // Issuers that depend on the emulator's URL are filled in lazily (see definition()).
      vendor_id_token: { issuer: '', keyOwner: SEED.idpSigner, jwksFormat: 'jwk', audiences: acceptedClients },
      app_platform_idp: { issuer: '', keyOwner: SEED.appPlatformSigner, jwksFormat: 'x509', audiences: [project] },
    };
    this.#appPlatformProject = project;
  }

  #appPlatformProject = '';

  /** The configuration of a security definition, with URL-dependent issuers resolved. */
  definition(name: TokenDefinition): DefinitionConfig {
    const d = this.definitions[name];
    if (!d.issuer) {
      if (name === 'vendor_id_token') return { ...d, issuer: this.idpIssuer() };
      if (name === 'app_platform_idp') return { ...d, issuer: this.appPlatformIssuer(this.#appPlatformProject) };
    }
    return d;
  }

  idpIssuer(): string {
    return `${this.baseUrl()}/idp`;
  }

  appPlatformBase(): string {
    return `${this.baseUrl()}/app-platform`;
  }

  appPlatformIssuer(project: string): string {
    return `${this.appPlatformBase()}/${project}`;
  }

  /** The JWKS URI of a definition: the key owner's document in the chosen format. */
  jwksUri(name: TokenDefinition): string {
    const d = this.definition(name);
    if (d.jwksUriOverride) return d.jwksUriOverride;
    return jwksUrlFor(this.baseUrl(), d.keyOwner, d.jwksFormat);
  }

  addAccount(email: string, kind: ServiceAccount['kind']): ServiceAccount {
    const existing = this.accounts.get(email);
    if (existing) return existing;
    const projectId = kind === 'default' ? email.split('@')[0]! : (/@([^.]+)\./.exec(email)?.[1] ?? SEED.clientProject);
    const acct: ServiceAccount = { email, projectId, kind, uniqueId: subjectFor('service-account', email) };
    this.accounts.set(email, acct);
    return acct;
  }

  createApiKey(name: string, key?: string): { key: string; name: string } {
    const k = key ?? `AIzaSy${randomBytes(24).toString('base64url').slice(0, 33)}`;
    if (!/^[A-Za-z0-9_-]{8,}$/.test(k)) throw new Error('an API key is at least 8 characters of [A-Za-z0-9_-]');
    this.apiKeys.set(k, { key: k, name, createdAt: this.now() });
    return { key: k, name };
  }
}

/** Where the emulator serves an owner's keys: the real system's URL layout. */
export function jwksUrlFor(base: string, owner: string, format: JwksFormat): string {
  const enc = encodeURIComponent(owner);
  if (owner === SEED.idpSigner) return `${base}/idp/oauth2/${format === 'jwk' ? 'v3' : 'v1'}/certs`;
  return format === 'jwk' ? `${base}/service_accounts/v1/jwk/${enc}` : `${base}/service_accounts/v1/metadata/x509/${enc}`;
}
