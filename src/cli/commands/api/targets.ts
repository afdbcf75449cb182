/**
 * Where `lanyard api` sends a request and with which credential. A path goes
 * to the chosen service of the profile; a full URL gets the credential of the
 * service whose configured endpoint it belongs to — and none for any other
 * host, so a token never leaks to a server it was not issued for. The path
 * `graphql` of the hosting service is its query API (`…/api/graphql` beside
 * a server's `…/api/v3`), as in gh.
 */
import type { Context } from '../../context.js';
import { fixedCredential, type CredentialProvider } from '../../../core/auth/provider.js';
import type { ServiceName } from '../../../core/errors.js';
import { providerFor, SERVICES } from '../../services/registry.js';
import { UsageError } from '../../errors/usage-error.js';
import { SERVICE_NAMES } from '../../../shared/services.js';

export type ApiService = ServiceName;

export interface ApiTarget {
  url: string;
  service: ApiService;
  /** The service's credential provider: the HTTP client refreshes after a 401 and retries once, where the service can. */
  auth: CredentialProvider;
}

function within(url: URL, base: string, service: ApiService): boolean {
  const b = new URL(base);
  if (service === 'hosting' && url.origin === b.origin && url.pathname === new URL(queryApiUrl(base)).pathname) return true;
  return url.origin === b.origin && (url.pathname + '/').startsWith(b.pathname.replace(/\/?$/, '/'));
}

/**
 * The hosting service's query API beside its REST base, as gh finds it: a
 * server's `…/api/v3` has it at `…/api/graphql`, any other base (the public
 * `https://api.HOST`) at `<base>/graphql`.
 */
export function queryApiUrl(base: string): string {
  const b = base.replace(/\/+$/, '');
  return /\/api\/v3$/.test(b) ? b.replace(/\/v3$/, '/graphql') : `${b}/graphql`;
}

/** Whether a target is the hosting service's query API. */
export const isQueryApi = (t: ApiTarget): boolean => t.service === 'hosting' && /\/graphql$/.test(new URL(t.url).pathname);

/** The fields of a query API request as gh sends them: `query` and `operationName` as they are, every other field a variable. */
export function queryApiBody(params: Record<string, unknown>): Record<string, unknown> {
  const { query, operationName, ...variables } = params;
  return { query, ...(operationName === undefined ? {} : { operationName }), ...(Object.keys(variables).length ? { variables } : {}) };
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
    const order: ApiService[] = [service, ...SERVICE_NAMES];
    for (const s of order) {
      let base: string;
      try {
        base = SERVICES[s].base(settings, name);
      } catch {
        continue;
      }
      if (within(url, base, s)) return { url: url.toString(), service: s, auth: await providerFor(ctx, s, settings, name, o) };
    }
    if (o.login !== undefined) throw new UsageError(`--user picks a hosting account; ${url.origin} is not an endpoint of profile "${name}"`);
    ctx.warn(`${url.origin} is not an endpoint of profile "${name}"; sending the request without credentials`);
    return { url: url.toString(), service, auth: fixedCredential({ scheme: 'none' }, 'anonymous') };
  }
  if (!target.startsWith('/')) target = '/' + target;
  const base = SERVICES[service].base(settings, name);
  // `graphql` names the hosting service's query API (as in gh), wherever it sits beside the REST base.
  const url =
    service === 'hosting' && /^\/graphql(?=[?#]|$)/.test(target) ? queryApiUrl(base) + target.slice('/graphql'.length) : base.replace(/\/+$/, '') + target;
  return { url, service, auth: await providerFor(ctx, service, settings, name, o) };
}
