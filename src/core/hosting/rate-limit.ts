/** `GET {api}/rate_limit`: request + processing, headers authoritative over the body. */
import { httpUrlOption } from '../options.js';
import { authFields, type CredentialProvider } from '../auth/provider.js';
import type { Credential, HttpClient } from '../http/client.js';
import { parseServerDate, type RateLimitState } from '../ratelimit/headers.js';
import { checkWire } from '../wire/check.js';
import { RateLimitSchema } from '../wire/schemas.js';

export interface ResourceBudget {
  limit: number;
  used: number;
  remaining: number;
  /** UTC epoch seconds. */
  reset: number;
}

export interface RateLimitOverview {
  resources: Record<string, ResourceBudget>;
  /** Server clock minus local clock (ms), from the response's Date header; 0 when absent. */
  skewMs?: number;
}

export async function fetchRateLimit(
  http: HttpClient,
  apiUrl: string,
  /** A fixed credential, or the provider (refreshed and retried once after a 401). */
  credential: Credential | CredentialProvider,
  signal?: AbortSignal,
  /** Local clock, to measure the server's clock skew. */
  now?: () => number,
): Promise<RateLimitOverview> {
  const { data, response } = await http.json({ url: 'rate_limit', baseUrl: httpUrlOption(apiUrl, 'apiUrl'), ...authFields(credential), signal });
  const overview = processRateLimitResponse(data, response.rateLimit);
  const serverNow = parseServerDate(response.headers.date);
  if (serverNow !== undefined && now !== undefined) overview.skewMs = serverNow - now();
  return overview;
}

/** Checks the body against the wire type; the header state (if any) overrides its own resource. */
export function processRateLimitResponse(body: unknown, headerState?: RateLimitState): RateLimitOverview {
  const b = checkWire('hosting', 'the answer to GET /rate_limit', RateLimitSchema, body);
  const resources: Record<string, ResourceBudget> = {};
  const budget = (v: ResourceBudget): ResourceBudget => ({ limit: v.limit, used: v.used, remaining: v.remaining, reset: v.reset });
  for (const [name, v] of Object.entries(b.resources ?? {})) resources[name] = budget(v);
  if (!Object.keys(resources).length && b.rate) resources.core = budget(b.rate);
  if (headerState && headerState.limit !== undefined && headerState.remaining !== undefined && headerState.reset !== undefined) {
    resources[headerState.resource ?? 'core'] = {
      limit: headerState.limit,
      used: headerState.used ?? headerState.limit - headerState.remaining,
      remaining: headerState.remaining,
      reset: headerState.reset,
    };
  }
  return { resources };
}
