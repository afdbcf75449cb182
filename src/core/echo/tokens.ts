/**
 * The token each `--scheme` sends: minted from a service-account key file
 * (vendor-jwt, service-account, default-service-account) or obtained by a
 * browser sign-in and cached until it expires (id-token, app-platform).
 */
import { EchoTokenSchemes, type EchoTokenScheme } from '../../shared/echo.js';
import type { CredentialStore } from '../deps.js';
import { ValidationError } from '../errors.js';
import { type CredentialProvider, fixedCredential } from '../auth/provider.js';
import { appPlatformAccount, idTokenAccount, readCachedToken, writeCachedToken } from './credentials.js';
import { mintServiceAccountJwt, readServiceAccountKeyFile } from './service-account.js';
import { signInWithBrowser, type SignInDeps } from './signin.js';

export interface SchemeTokenOptions {
  scheme: EchoTokenScheme;
  /** Service-account schemes. */
  credentialsFile?: string;
  audience?: string;
  issuer?: string;
  lifetimeSec?: number;
  /** id-token scheme. */
  idpUrl?: string;
  clientId?: string;
  /** app-platform scheme. */
  appPlatformUrl?: string;
  project?: string;
  /** Sign in again even when a cached token is still valid. */
  fresh?: boolean;
  openBrowser: boolean;
  timeoutMs: number;
  loginHint?: string;
}

export interface SchemeToken {
  token: string;
  /** How it was obtained. */
  source: 'minted' | 'cache' | 'sign-in';
  /** Epoch ms. */
  expiresAt: number;
  /** The path of the API this scheme calls. */
  path: string;
  /** Who the token names (service account, or signed-in user), when known. */
  principal?: string;
}

/** The credential strategy of a scheme's token: a bearer token, good until it expires (no refresh; a new one comes from obtainSchemeToken). */
export function schemeTokenCredential(t: SchemeToken): CredentialProvider {
  return fixedCredential({ scheme: 'bearer', token: t.token }, t.source);
}

export interface SchemeTokenDeps extends SignInDeps {
  store(): Promise<CredentialStore>;
}

const SERVICE_ACCOUNT_SCHEMES = new Set<EchoTokenScheme>(['vendor-jwt', 'service-account', 'default-service-account']);

export function isServiceAccountScheme(s: EchoTokenScheme): boolean {
  return SERVICE_ACCOUNT_SCHEMES.has(s);
}

export async function obtainSchemeToken(o: SchemeTokenOptions, d: SchemeTokenDeps): Promise<SchemeToken> {
  const path = EchoTokenSchemes[o.scheme].path;
  if (isServiceAccountScheme(o.scheme)) {
    if (!o.credentialsFile) throw new ValidationError(`--scheme ${o.scheme} needs --credentials <key file> (a service-account key file)`);
    if (!o.audience) {
      throw new ValidationError('no audience', { remedy: { kind: 'set-setting', setting: 'echo.audience', example: '<value>', option: '--audience' } });
    }
    // The two account schemes trust an account's own address as issuer.
    if (o.issuer !== undefined && o.scheme !== 'vendor-jwt' && !/^[^@\s]+@[^@\s]+$/.test(o.issuer)) {
      throw new ValidationError(`--scheme ${o.scheme} expects an account e-mail address as issuer, got "${o.issuer}"`);
    }
    const key = await readServiceAccountKeyFile(o.credentialsFile);
    const { token, claims } = await mintServiceAccountJwt(key, { issuer: o.issuer, audience: o.audience, nowMs: d.clock.now(), lifetimeSec: o.lifetimeSec });
    return { token, source: 'minted', expiresAt: claims.exp * 1000, path, principal: claims.iss };
  }
  const { issuer, clientId, account, product } = signInTarget(o);
  const store = await d.store();
  if (!o.fresh) {
    const cached = await readCachedToken(store, account, { issuer, clientId, nowMs: d.clock.now() });
    if (cached) return { token: cached.token, source: 'cache', expiresAt: cached.expiresAt, path, principal: cached.email };
  }
  const got = await signInWithBrowser(d, {
    issuer,
    clientId,
    openBrowser: o.openBrowser,
    timeoutMs: o.timeoutMs,
    loginHint: o.loginHint,
    productName: product,
  });
  await writeCachedToken(store, account, got);
  return { token: got.token, source: 'sign-in', expiresAt: got.expiresAt, path, principal: got.email };
}

function signInTarget(o: SchemeTokenOptions): { issuer: string; clientId: string; account: string; product: string } {
  if (o.scheme === 'id-token') {
    if (!o.idpUrl) throw new ValidationError('no identity provider', { remedy: { kind: 'set-setting', setting: 'echo.idpUrl', example: '<url>' } });
    if (!o.clientId)
      throw new ValidationError('no OAuth client id', { remedy: { kind: 'set-setting', setting: 'echo.idpClientId', example: '<id>', option: '--client-id' } });
    const issuer = o.idpUrl.replace(/\/+$/, '');
    return { issuer, clientId: o.clientId, account: idTokenAccount(issuer), product: 'the identity provider' };
  }
  if (!o.appPlatformUrl) throw new ValidationError('no app platform', { remedy: { kind: 'set-setting', setting: 'echo.appPlatformUrl', example: '<url>' } });
  if (!o.project)
    throw new ValidationError('no project', { remedy: { kind: 'set-setting', setting: 'echo.appPlatformProject', example: '<id>', option: '--project <id>' } });
  if (!/^[a-z0-9][a-z0-9-]{1,62}$/.test(o.project))
    throw new ValidationError(`--project: "${o.project}" is not a project id (lower-case letters, digits, hyphens)`);
  const base = o.appPlatformUrl.replace(/\/+$/, '');
  // The platform's issuer is {token issuer}/<project>; its audience (and client id) is the project.
  return { issuer: `${base}/${o.project}`, clientId: o.project, account: appPlatformAccount(base, o.project), product: `the app platform (${o.project})` };
}
