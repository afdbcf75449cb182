/** `GET {api}/rate_limit`: request + processing, headers authoritative over the body. */
import type { Credential, HttpClient } from '../http/client.js';
import type { RateLimitState } from '../ratelimit/headers.js';

export interface ResourceBudget {
  limit: number;
  used: number;
  remaining: number;
  /** UTC epoch seconds. */
  reset: number;
}

export interface RateLimitOverview {
  resources: Record<string, ResourceBudget>;
}

export async function fetchRateLimit(
  http: HttpClient,
  apiUrl: string,
  credential: Credential,
  signal?: AbortSignal,
): Promise<RateLimitOverview> {
  const res = await http.request({ url: 'rate_limit', baseUrl: apiUrl, credential, signal });
  return processRateLimitResponse(await res.json(), res.rateLimit);
}

function isBudget(v: unknown): v is ResourceBudget {
  if (!v || typeof v !== 'object') return false;
  const b = v as Record<string, unknown>;
  return ['limit', 'used', 'remaining', 'reset'].every((k) => typeof b[k] === 'number');
}

/** Validates the body; the header state (if any) overrides its own resource. */
export function processRateLimitResponse(body: unknown, headerState?: RateLimitState): RateLimitOverview {
  const resources: Record<string, ResourceBudget> = {};
  const raw = (body as { resources?: unknown })?.resources;
  if (raw && typeof raw === 'object') {
    for (const [name, v] of Object.entries(raw)) if (isBudget(v)) resources[name] = { limit: v.limit, used: v.used, remaining: v.remaining, reset: v.reset };
  }
  if (!Object.keys(resources).length) {
    const rate = (body as { rate?: unknown })?.rate;
    if (isBudget(rate)) resources.core = { ...rate };
  }
  if (headerState && headerState.limit !== undefined && headerState.remaining !== undefined && headerState.reset !== undefined) {
    resources[headerState.resource ?? 'core'] = {
      limit: headerState.limit,
      remaining: headerState.remaining,
      used: headerState.used ?? headerState.limit - headerState.remaining,
      reset: headerState.reset,
    };
  }
  return { resources };
}
