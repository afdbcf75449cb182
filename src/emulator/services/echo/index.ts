/**
 * The echo service of the emulator: the gateway and backend (`/echo`,
 * `/auth/info/*`), the API description (`/swagger.json`), the JWKS documents
 * of every signer in both formats, the identity provider (`/idp`) and the
 * app platform (`/app-platform/<project>`).
 */
import { Echo } from '../../../shared/constants.js';
import { EchoTokenSchemes, isEchoTokenScheme } from '../../../shared/echo.js';
import type { AdminVerb, EmulatorEnv, EmulatorService } from '../../service.js';
import type { EmuResponse, Router } from '../../router.js';
import { Gateway } from './gateway.js';
import { appPlatformProvider, idpProvider, issueIdToken, OidcPages } from './idp.js';
import { JwksCache } from './jwks-cache.js';
import { jwkSetDocument, KeyRing, x509MapDocument, type KeyAlg } from './keys.js';
import { EchoState, jwksUrlFor, SEED, type JwksFormat, type TokenDefinition } from './state.js';
import { swaggerDocument } from './swagger.js';
import { echoConsole } from '../../console/views/others.js';

export function createEchoService(env: EmulatorEnv): EmulatorService {
  const now = () => env.clock.now();
  const state = new EchoState(now, () => env.baseUrl());
  const keys = new KeyRing(now);
  const cache = new JwksCache(now, () => env.baseUrl());
  const gateway = new Gateway(state, cache, () => env.clock.nowSec());
  const pages = new OidcPages(state, keys, now);

  const serveKeys = async (id: string | undefined, format: JwksFormat, res: EmuResponse) => {
    if (!id || !isKnownOwner(id)) return res.json(404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
    const list = await keys.keys(id);
    res.json(200, format === 'jwk' ? jwkSetDocument(list) : x509MapDocument(list), { 'cache-control': 'public, max-age=300' });
  };
  const isKnownOwner = (id: string) => state.accounts.has(id) || id === SEED.idpSigner || id === SEED.appPlatformSigner;

  const admin = createAdminVerbs(env, state, keys, cache);

  return {
    name: 'echo',
    register(router: Router) {
      gateway.register(router);
      router.get('/swagger.json', (_req, res) => res.json(200, swaggerDocument(state, env.baseUrl())));
      router.get('/service_accounts/v1/jwk/:email', (req, res) => serveKeys(req.params.email, 'jwk', res));
      router.get('/service_accounts/v1/metadata/x509/:email', (req, res) => serveKeys(req.params.email, 'x509', res));
      router.get('/robot/v1/metadata/x509/:email', (req, res) => serveKeys(req.params.email, 'x509', res));
      router.get('/idp/oauth2/v3/certs', (_req, res) => serveKeys(SEED.idpSigner, 'jwk', res));
      router.get('/idp/oauth2/v1/certs', (_req, res) => serveKeys(SEED.idpSigner, 'x509', res));
      pages.register(router, '/idp', () => idpProvider(state));
      pages.register(router, '/app-platform/:project', (req) => appPlatformProvider(state, req.params.project ?? ''));
    },
    reset() {
      state.reset();
      keys.clear();
      cache.clear();
    },
    info: () => echoInfo(state, keys, env.baseUrl()),
    admin,
    console: () => echoConsole(state),
    async close() {
      await cache.close();
    },
  };
}

/** The service's locations, seeded keys and accounts, security definitions, identity provider and app platform, profile settings. */
function echoInfo(state: EchoState, keys: KeyRing, base: string): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (const name of Object.keys(state.definitions) as TokenDefinition[]) {
    const d = state.definition(name);
    definitions[name] = { issuer: d.issuer, jwksUri: state.jwksUri(name), jwksFormat: d.jwksFormat, audiences: d.audiences };
  }
  const keyIds = keys.summary();
  return {
    baseUrl: base,
    swaggerUrl: `${base}/swagger.json`,
    apiKeys: [...state.apiKeys.values()].map(({ key, name }) => ({ key, name })),
    audience: SEED.audience,
    serviceAccounts: [...state.accounts.values()].map((a) => ({
      email: a.email,
      kind: a.kind,
      scheme: schemeOfAccount(state, a.email),
      keyIds: keyIds[a.email] ?? [],
      jwksUrls: { jwk: jwksUrlFor(base, a.email, 'jwk'), x509: jwksUrlFor(base, a.email, 'x509') },
    })),
    definitions,
    idp: { url: state.idpIssuer(), clientIds: [...state.idpClients.values()], users: [...state.users.values()] },
    appPlatform: { url: state.appPlatformBase(), projects: [...state.projects.values()], users: [...state.users.values()] },
    profile: {
      'echo.baseUrl': base,
      'echo.audience': SEED.audience,
      'echo.idpUrl': state.idpIssuer(),
      'echo.idpClientId': SEED.idpClients[0].clientId,
      'echo.appPlatformUrl': state.appPlatformBase(),
      'echo.appPlatformProject': SEED.projects[0].id,
    },
  };
}

function schemeOfAccount(state: EchoState, email: string): string | undefined {
  for (const [scheme, { definition }] of Object.entries(EchoTokenSchemes)) {
    const def = state.definitions[definition as TokenDefinition];
    if (def && def.keyOwner === email) return scheme;
  }
  return undefined;
}

const str = (v: unknown, what: string): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !v) throw new Error(`${what} must be a non-empty string`);
  return v;
};

function createAdminVerbs(env: EmulatorEnv, state: EchoState, keys: KeyRing, cache: JwksCache): Record<string, AdminVerb> {
  return {
    ...keyVerbs(env, state, keys),
    /** Changes a security definition: {name, jwksFormat?: jwk|x509, jwksUri?, audiences?: string[]}. */
    definition: (b) => changeDefinition(state, b),
    ...identityTokenVerbs(env, state, keys),
    /** JWKS fetches per URI since the last reset. */
    stats: () => ({ jwksFetches: Object.fromEntries(cache.fetches) }),
    /** Echo paths, for discovery by scripts. */
    paths: () => ({ ...Echo.paths }),
  };
}

/** API keys and signing keys: created, deleted, rotated. */
function keyVerbs(env: EmulatorEnv, state: EchoState, keys: KeyRing): Record<string, AdminVerb> {
  return {
    /** Creates an API key: {name?, key?} → {key, name}. */
    'api-key': (b) => state.createApiKey(str(b.name, 'name') ?? 'created', str(b.key, 'key')),
    'api-key-delete': (b) => ({ deleted: state.apiKeys.delete(str(b.key, 'key') ?? '') }),
    /**
     * A key file for a service account: {scheme?} picks the account a scheme
     * trusts (default service-account); {email?} names any account (created if
     * new — the gateway trusts only the schemes' issuers); {algorithm?: ES256}.
     */
    'service-account': (b) => serviceAccountKeyFile(env, state, keys, b),
    /** Deletes a key by kid (caches keep it up to 300 s, like the real gateway). */
    'key-delete': (b) => ({ deleted: keys.remove(str(b.kid, 'kid') ?? '') }),
    /** A new signing key for the identity provider or the app platform: {signer: idp | app-platform}. */
    'rotate-key': async (b) => {
      const signer = str(b.signer, 'signer');
      const owner = signer === 'idp' ? SEED.idpSigner : signer === 'app-platform' ? SEED.appPlatformSigner : undefined;
      if (!owner) throw new Error('signer must be idp or app-platform');
      await keys.keys(owner);
      return { kid: (await keys.add(owner, 'RS256')).kid };
    },
  };
}

/** The key file of a (new) key of a service account, as the platform's console downloads it. */
async function serviceAccountKeyFile(env: EmulatorEnv, state: EchoState, keys: KeyRing, b: Record<string, unknown>): Promise<Record<string, unknown>> {
  const scheme = str(b.scheme, 'scheme') ?? 'service-account';
  if (!isEchoTokenScheme(scheme) || !['vendor-jwt', 'service-account', 'default-service-account'].includes(scheme)) {
    throw new Error('scheme must be vendor-jwt, service-account or default-service-account');
  }
  const email = str(b.email, 'email') ?? state.definitions[EchoTokenSchemes[scheme].definition as TokenDefinition].keyOwner;
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new Error('email must be an e-mail address');
  const acct = state.addAccount(email, /@appspot\./.test(email) ? 'default' : 'user-managed');
  const alg = (str(b.algorithm, 'algorithm') ?? 'RS256') as KeyAlg;
  if (alg !== 'RS256' && alg !== 'ES256') throw new Error('algorithm must be RS256 or ES256');
  const key = await keys.add(acct.email, alg);
  const base = env.baseUrl();
  return {
    type: 'service_account',
    project_id: acct.projectId,
    private_key_id: key.kid,
    private_key: key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    client_email: acct.email,
    client_id: acct.uniqueId,
    auth_uri: `${state.idpIssuer()}/authorize`,
    token_uri: `${state.idpIssuer()}/token`,
    auth_provider_x509_cert_url: `${base}/idp/oauth2/v1/certs`,
    client_x509_cert_url: jwksUrlFor(base, acct.email, 'x509'),
  };
}

/** A security definition changed; answers it as the gateway now applies it. */
function changeDefinition(state: EchoState, b: Record<string, unknown>): Record<string, unknown> {
  const name = str(b.name, 'name') as TokenDefinition;
  const d = state.definitions[name];
  if (!d) throw new Error(`no security definition ${name}`);
  if (b.jwksFormat !== undefined) {
    if (b.jwksFormat !== 'jwk' && b.jwksFormat !== 'x509') throw new Error('jwksFormat must be jwk or x509');
    d.jwksFormat = b.jwksFormat;
    delete d.jwksUriOverride;
  }
  if (b.jwksUri !== undefined) d.jwksUriOverride = str(b.jwksUri, 'jwksUri');
  if (b.audiences !== undefined) {
    if (!Array.isArray(b.audiences) || !b.audiences.every((a) => typeof a === 'string' && a)) throw new Error('audiences must be strings');
    d.audiences = [...(b.audiences as string[])];
  }
  return { name, ...state.definition(name), jwksUri: state.jwksUri(name) };
}

/** Identity tokens of the identity provider and of the app platform, for tests. */
function identityTokenVerbs(env: EmulatorEnv, state: EchoState, keys: KeyRing): Record<string, AdminVerb> {
  const nowSec = () => env.clock.nowSec();
  const tokenOptions = (b: Record<string, unknown>) => ({
    lifetimeSec: b.lifetimeSec === undefined ? undefined : Number(b.lifetimeSec),
    claims: (b.claims && typeof b.claims === 'object' ? b.claims : undefined) as Record<string, unknown> | undefined,
  });
  const userOf = (b: Record<string, unknown>) => {
    const email = str(b.email, 'email') ?? SEED.users[0].email;
    const user = state.users.get(email);
    if (!user) throw new Error(`no user ${email}`);
    return user;
  };
  return {
    /** An identity token of the identity provider, for tests: {email?, clientId?, lifetimeSec?, claims?}. */
    'id-token': async (b) => {
      const clientId = str(b.clientId, 'clientId') ?? SEED.idpClients[0].clientId;
      return { id_token: await issueIdToken(keys, idpProvider(state), userOf(b), clientId, nowSec(), tokenOptions(b)) };
    },
    /** An identity token of the app platform, for tests: {project?, email?, lifetimeSec?, claims?}. */
    'app-token': async (b) => {
      const project = str(b.project, 'project') ?? SEED.projects[0].id;
      const p = appPlatformProvider(state, project);
      if (!p) throw new Error(`no project ${project}`);
      return { id_token: await issueIdToken(keys, p, userOf(b), project, nowSec(), tokenOptions(b)) };
    },
  };
}
