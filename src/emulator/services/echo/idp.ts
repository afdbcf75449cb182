/**
 * The identity provider (`/idp`) and the app platform (`/app-platform/<project>`)
 * the echo API trusts: OpenID discovery, an HTML sign-in page, the
 * authorization-code grant with PKCE (S256, required) for loopback redirect
 * URIs, and identity tokens signed with keys published at their JWKS URIs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { escapeHtml, type EmuRequest, type EmuResponse, type Router } from '../../router.js';
import type { KeyRing } from './keys.js';
import { SEED, jwksUrlFor, subjectFor, type EchoState, type User } from './state.js';

export const CODE_LIFETIME_MS = 10 * 60_000;
export const ID_TOKEN_LIFETIME_SEC = 3600;

export interface Provider {
  /** Binds codes to the provider that issued them. */
  readonly key: string;
  readonly issuer: string;
  readonly title: string;
  readonly signer: string;
  /** Why a client id is refused, or undefined when it is known. */
  clientProblem(clientId: string): string | undefined;
  claims(user: User, clientId: string, nowSec: number): Record<string, unknown>;
}

export function idpProvider(state: EchoState): Provider {
  return {
    key: 'idp',
    issuer: state.idpIssuer(),
    title: 'Lanyard Accounts (emulator)',
    signer: SEED.idpSigner,
    clientProblem: (id) => (state.idpClients.has(id) ? undefined : `The OAuth client was not found: ${id}`),
    claims: (user, clientId) => ({
      azp: clientId,
      aud: clientId,
      sub: subjectFor('idp', user.email),
      email: user.email,
      email_verified: true,
      name: user.name,
    }),
  };
}

export function appPlatformProvider(state: EchoState, project: string): Provider | undefined {
  if (!state.projects.has(project)) return undefined;
  return {
    key: `app:${project}`,
    issuer: state.appPlatformIssuer(project),
    title: `App platform sign-in: ${project} (emulator)`,
    signer: SEED.appPlatformSigner,
    clientProblem: (id) => (id === project ? undefined : `The client id of project ${project} is "${project}", not "${id}"`),
    claims: (user, _clientId, nowSec) => {
      const uid = subjectFor(`app:${project}`, user.email);
      return {
        aud: project,
        auth_time: nowSec,
        user_id: uid,
        sub: uid,
        email: user.email,
        email_verified: true,
        name: user.name,
        platform: { identities: { email: [user.email] }, sign_in_provider: 'password' },
      };
    },
  };
}

/** Signs an identity token for `user` with the provider's active key. */
export async function issueIdToken(
  keys: KeyRing,
  p: Provider,
  user: User,
  clientId: string,
  nowSec: number,
  extra: { nonce?: string; lifetimeSec?: number; claims?: Record<string, unknown> } = {},
): Promise<string> {
  const key = await keys.active(p.signer);
  const claims: Record<string, unknown> = {
    iss: p.issuer,
    ...p.claims(user, clientId, nowSec),
    iat: nowSec,
    exp: nowSec + (extra.lifetimeSec ?? ID_TOKEN_LIFETIME_SEC),
    ...(extra.nonce ? { nonce: extra.nonce } : {}),
    ...extra.claims,
  };
  for (const [k, v] of Object.entries(claims)) if (v === null) delete claims[k];
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

function isLoopbackRedirect(uri: string): boolean {
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname) && !u.hash;
  } catch {
    return false;
  }
}

const AUTH_PARAMS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'nonce', 'login_hint'];

function page(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
    `<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1f2328}` +
    'label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}' +
    'button{margin:1rem .5rem 0 0;padding:.4rem 1rem}.error{color:#b42318}</style></head>' +
    `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

export class OidcPages {
  constructor(
    private readonly state: EchoState,
    private readonly keys: KeyRing,
    private readonly now: () => number,
  ) {}

  register(router: Router, prefix: string, resolve: (req: EmuRequest) => Provider | undefined): void {
    const withProvider = (fn: (p: Provider, req: EmuRequest, res: EmuResponse) => unknown) => async (req: EmuRequest, res: EmuResponse) => {
      const p = resolve(req);
      if (!p) return res.json(404, { error: 'not_found', error_description: 'No such project' });
      await fn(p, req, res);
    };
    router.get(
      `${prefix}/.well-known/openid-configuration`,
      withProvider((p, _req, res) => res.json(200, this.#discovery(p, prefix, _req))),
    );
    router.get(
      `${prefix}/authorize`,
      withProvider((p, req, res) => this.#authorizeGet(p, req, res)),
    );
    router.post(
      `${prefix}/authorize`,
      withProvider((p, req, res) => this.#authorizePost(p, req, res)),
    );
    router.post(
      `${prefix}/token`,
      withProvider((p, req, res) => this.#token(p, req, res)),
    );
  }

  #discovery(p: Provider, _prefix: string, _req: EmuRequest): Record<string, unknown> {
    return {
      issuer: p.issuer,
      authorization_endpoint: `${p.issuer}/authorize`,
      token_endpoint: `${p.issuer}/token`,
      jwks_uri: p.key === 'idp' ? jwksUrlFor(this.#base(), p.signer, 'jwk') : jwksUrlFor(this.#base(), p.signer, 'x509'),
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      scopes_supported: ['openid', 'email', 'profile'],
      claims_supported: ['iss', 'sub', 'aud', 'iat', 'exp', 'email', 'email_verified', 'name', 'nonce'],
      grant_types_supported: ['authorization_code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    };
  }

  #base(): string {
    return this.state.idpIssuer().replace(/\/idp$/, '');
  }

  /** Checks an authorization request: a page error (no redirect) or a redirect error, else undefined. */
  #check(p: Provider, q: Record<string, string>): { page?: string; redirect?: { error: string; description: string } } | undefined {
    const clientId = q.client_id ?? '';
    const problem = clientId ? p.clientProblem(clientId) : 'Missing required parameter: client_id';
    if (problem) return { page: `invalid_client: ${problem}` };
    if (!q.redirect_uri || !isLoopbackRedirect(q.redirect_uri)) {
      return { page: 'redirect_uri_mismatch: this client may only redirect to a loopback address (http://127.0.0.1:<port>/...)' };
    }
    if (q.response_type !== 'code') return { redirect: { error: 'unsupported_response_type', description: 'only response_type=code is supported' } };
    if (!(q.scope ?? '').split(/\s+/).includes('openid')) return { redirect: { error: 'invalid_scope', description: 'the scope must include openid' } };
    if (!q.code_challenge || q.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge)) {
      return { redirect: { error: 'invalid_request', description: 'PKCE is required: code_challenge with code_challenge_method=S256' } };
    }
    return undefined;
  }

  #redirect(res: EmuResponse, q: Record<string, string>, params: Record<string, string>): void {
    const u = new URL(q.redirect_uri!);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    if (q.state !== undefined) u.searchParams.set('state', q.state);
    res.redirect(302, u.toString(), { 'cache-control': 'no-store' });
  }

  #form(p: Provider, q: Record<string, string>, error?: string): string {
    const hidden = AUTH_PARAMS.filter((k) => q[k] !== undefined && k !== 'login_hint')
      .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(q[k]!)}">`)
      .join('');
    return page(
      p.title,
      `<p>Sign in to continue to <strong>${escapeHtml(q.client_id ?? '')}</strong>.</p>` +
        (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') +
        `<form method="post">${hidden}` +
        `<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="username" value="${escapeHtml(q.email ?? q.login_hint ?? '')}" required>` +
        '<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password">' +
        '<div><button type="submit" name="action" value="allow">Sign in</button><button type="submit" name="action" value="deny" formnovalidate>Cancel</button></div>' +
        '</form>',
    );
  }

  async #authorizeGet(p: Provider, req: EmuRequest, res: EmuResponse): Promise<void> {
    const q = Object.fromEntries(req.query);
    const bad = this.#check(p, q);
    if (bad?.page) return res.html(400, page('Sign-in error', `<p class="error">${escapeHtml(bad.page)}</p>`));
    if (bad?.redirect) return this.#redirect(res, q, { error: bad.redirect.error, error_description: bad.redirect.description });
    res.html(200, this.#form(p, q), { 'cache-control': 'no-store' });
  }

  async #authorizePost(p: Provider, req: EmuRequest, res: EmuResponse): Promise<void> {
    const q = await req.params_();
    const bad = this.#check(p, q);
    if (bad?.page) return res.html(400, page('Sign-in error', `<p class="error">${escapeHtml(bad.page)}</p>`));
    if (bad?.redirect) return this.#redirect(res, q, { error: bad.redirect.error, error_description: bad.redirect.description });
    if (q.action === 'deny') return this.#redirect(res, q, { error: 'access_denied', error_description: 'The user cancelled the sign-in' });
    const user = this.state.users.get((q.email ?? '').trim().toLowerCase());
    if (!user || user.password !== q.password) {
      return res.html(401, this.#form(p, q, 'Wrong email or password.'), { 'cache-control': 'no-store' });
    }
    const code = randomBytes(32).toString('base64url');
    this.state.codes.set(code, {
      code,
      providerKey: p.key,
      clientId: q.client_id!,
      redirectUri: q.redirect_uri!,
      codeChallenge: q.code_challenge!,
      nonce: q.nonce,
      scope: q.scope!,
      email: user.email,
      expiresAt: this.now() + CODE_LIFETIME_MS,
    });
    this.#redirect(res, q, { code, scope: q.scope! });
  }

  async #token(p: Provider, req: EmuRequest, res: EmuResponse): Promise<void> {
    const q = await req.params_();
    const fail = (error: string, description: string, status = 400) =>
      res.json(status, { error, error_description: description }, { 'cache-control': 'no-store' });
    if (q.grant_type !== 'authorization_code') return fail('unsupported_grant_type', `grant_type ${q.grant_type ?? '(missing)'} is not supported`);
    const code = q.code ? this.state.codes.get(q.code) : undefined;
    if (code) this.state.codes.delete(code.code); // one use, whatever happens next
    if (!code || code.providerKey !== p.key || code.expiresAt <= this.now()) return fail('invalid_grant', 'The authorization code is invalid or expired.');
    if (code.clientId !== q.client_id) return fail('invalid_grant', 'The code was issued to another client.');
    if (code.redirectUri !== q.redirect_uri) return fail('invalid_grant', 'redirect_uri does not match the authorization request.');
    const challenge = q.code_verifier ? createHash('sha256').update(q.code_verifier).digest('base64url') : '';
    if (challenge !== code.codeChallenge) return fail('invalid_grant', 'code_verifier does not match the code_challenge.');
    const user = this.state.users.get(code.email)!;
    const nowSec = Math.floor(this.now() / 1000);
    const idToken = await issueIdToken(this.keys, p, user, code.clientId, nowSec, { nonce: code.nonce });
    res.json(
      200,
      {
        access_token: randomBytes(24).toString('base64url'),
        token_type: 'Bearer',
        expires_in: ID_TOKEN_LIFETIME_SEC,
        id_token: idToken,
        scope: code.scope,
      },
      { 'cache-control': 'no-store', pragma: 'no-cache' },
    );
  }
}
