/**
 * Where `lanyard api` sends a request and with which credential. A path goes
 * to the chosen service of the profile; a full URL gets the credential of the
 * service whose configured endpoint it belongs to — and none for any other
 * host, so a token never leaks to a server it was not issued for.
 */
import type { Context } from '../../context.js';
import { fixedCredential, type CredentialProvider } from '../../../core/auth/provider.js';
import { baseOf, credentialFor, type ServiceName } from '../../services/credentials.js';
import { UsageError } from '../../usage-error.js';

export type ApiService = ServiceName;

export interface ApiTarget {
  url: string;
  service: ApiService;
  /** The service's credential provider: the HTTP client refreshes after a 401 and retries once, where the service can. */
  auth: CredentialProvider;
}

function within(url: URL, base: string): boolean {
  const b = new URL(base);
  return url.origin === b.origin && (url.pathname + '/').startsWith(b.pathname.replace(/\/?$/, '/'));
}

/** `o.login`: a stored hosting account instead of the active one (`--user`); only for requests to the hosting service. */
export async function resolveApiTarget(ctx: Context, target: string, service: ApiService, o: { login?: string } = {}): Promise<ApiTarget> {
  if (!target.trim() || /[\s\u0000-\u001f\u007f]/.test(target)) throw new UsageError(`invalid path or URL ${JSON.stringify(target)} (encode spaces as %20)`);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(target)?.[1];
  if (scheme && !/^https?$/i.test(scheme)) throw new UsageError(`${scheme}: URLs are not supported: pass a path of the service (e.g. /user) or an http(s) URL`);
  const { name, settings } = await ctx.profile();
  if (/^https?:\/\//i.test(target)) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new UsageError(`invalid URL "${target}"`);
    }
    const order: ApiService[] = [service, 'hosting', 'echo', 'mailbox', 'health', 'protocol'];
    for (const s of order) {
      let base: string;
      try {
        base = baseOf(s, settings, name);
      } catch {
        continue;
      }
      if (within(url, base)) return { url: url.toString(), service: s, auth: (await credentialFor(ctx, s, settings, name, o)).auth };
    }
    if (o.login !== undefined) throw new UsageError(`--user picks a hosting account; ${url.origin} is not an endpoint of profile "${name}"`);
    ctx.warn(`${url.origin} is not an endpoint of profile "${name}"; sending the request without credentials`);
    return { url: url.toString(), service, auth: fixedCredential({ scheme: 'none' }, 'anonymous') };
  }
  if (!target.startsWith('/')) target = '/' + target;
  const base = baseOf(service, settings, name);
  const url = base.replace(/\/+$/, '') + target;
  return { url, service, auth: (await credentialFor(ctx, service, settings, name, o)).auth };
}

/**
 * After a 401: which credential the service refused (where it came from,
 * whose it is) and the sign-in command of that service.
 */
export function refusedCredentialHint(t: Pick<ApiTarget, 'service' | 'auth'>): string {
  const source = t.auth.source;
  const login = (t.auth as { login?: string }).login;
  const fromEnv = (name: string, what: string, fix: string) => `the ${what} from ${name} was refused: set a valid one, or unset it and ${fix}`;
  switch (t.service) {
    case 'hosting': {
      const fix = 'sign in with `lanyard auth device`';
      if (source === 'env:LANYARD_TOKEN') return fromEnv('LANYARD_TOKEN', 'token', fix);
      if (source === 'env:WORKFLOW_TOKEN') return fromEnv('WORKFLOW_TOKEN', 'token', fix);
      if (source === 'basic-client') return 'the client id and secret were refused: check LANYARD_CLIENT_ID and LANYARD_CLIENT_SECRET';
      if (source === 'anonymous') return 'authentication needed: no token was sent; sign in with `lanyard auth device` (or set LANYARD_TOKEN)';
      return `the stored token of ${login ?? 'this account'} was refused (revoked or expired): sign in again with \`lanyard auth device\``;
    }
    case 'health': {
      const fix = 'sign in with `lanyard auth login --health`';
      if (source === 'environment') return fromEnv('LANYARD_HEALTH_TOKEN', 'health token', fix);
      return `the stored health token was refused (revoked or expired): ${fix.replace('sign in', 'sign in again')}`;
    }
    case 'echo': {
      if (source === 'env:LANYARD_API_KEY') return fromEnv('LANYARD_API_KEY', 'API key', 'store one with `lanyard echo key set`');
      if (source === 'anonymous') return 'authentication needed: no API key was sent; set LANYARD_API_KEY or store one with `lanyard echo key set`';
      return 'the stored echo API key was refused: store a valid one with `lanyard echo key set`';
    }
    case 'protocol': {
      const fix = 'sign in with `lanyard auth login --server <url>` (or run `lanyard protocol request`)';
      if (source === 'anonymous') return `authentication needed: no protocol token was sent; ${fix}`;
      return `the stored protocol token was refused after a refresh: ${fix.replace('sign in', 'sign in again')}`;
    }
    case 'mailbox':
      return 'the mailbox API refused the request (it defines no authentication of its own)';
  }
}
