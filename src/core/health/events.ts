/**
 * The health events list: one request function per page, a processing
 * function for its body, and a pager that follows `nextLink` exactly as given.
 */
import { httpUrlOption } from '../options.js';
import type { HttpClient } from '../http/client.js';
import type { CredentialProvider } from '../auth/provider.js';
import { AuthRequiredError, HttpError, LanyardError, oneLine, ValidationError } from '../errors.js';
import type { HealthErrorResponse, HealthEvent, HealthEventsPage } from '../../shared/health.js';
import { HealthQuery } from '../../shared/health.js';
import { encodeQueryValue } from './filter.js';
import { pathSegment } from '../path-segment.js';
import { checkWire } from '../wire/check.js';
import { HealthEventsPageSchema } from '../wire/schemas.js';

export interface EventsQuery {
  /** `health.managementUrl`. */
  managementUrl: string;
  subscriptionId: string;
  /** Vendor segment of `<Vendor>.ResourceHealth`. */
  vendor: string;
  apiVersion: string;
  filter?: string;
  /** `M/D/YYYY`. */
  queryStartTime?: string;
}

/** A non-200 answer of the health API, with its flat ErrorResponse. */
export class HealthApiError extends HttpError {
  constructor(
    status: number,
    method: string,
    url: string,
    readonly error: HealthErrorResponse | undefined,
    body: unknown,
    headers: Readonly<Record<string, string>>,
  ) {
    super(status, method, url, body, headers, describeHealthError(status, error, body));
  }
}

export function describeHealthError(status: number, e: HealthErrorResponse | undefined, body: unknown): string {
  if (e) return `${e.code}: ${oneLine(e.message)}${e.details ? `\n${e.details.trim()}` : ''}`;
  const text = typeof body === 'string' && body.trim() ? `: ${oneLine(body).slice(0, 200)}` : '';
  return `HTTP ${status}${text}`;
}

/** The flat ErrorResponse of a body (also accepts the `{error: {...}}` envelope some deployments use). */
export function parseErrorResponse(body: unknown): HealthErrorResponse | undefined {
  if (!body || typeof body !== 'object') return undefined;
  let b = body as Record<string, unknown>;
  if (b.error && typeof b.error === 'object' && typeof b.code !== 'string') b = b.error as Record<string, unknown>;
  if (typeof b.code !== 'string' && typeof b.message !== 'string') return undefined;
  const details = typeof b.details === 'string' ? b.details : Array.isArray(b.details) ? JSON.stringify(b.details) : undefined;
  return { code: typeof b.code === 'string' ? b.code : 'Error', message: typeof b.message === 'string' ? b.message : '', ...(details ? { details } : {}) };
}

/** The URL of the first page: every value fully percent-encoded, api-version always present. */
export function eventsUrl(q: EventsQuery): string {
  if (!q.subscriptionId) throw new ValidationError('a subscription id is required');
  const base = httpUrlOption(q.managementUrl, 'managementUrl').replace(/\/+$/, '');
  const path = `/subscriptions/${pathSegment(q.subscriptionId, 'subscription')}/providers/${pathSegment(q.vendor, 'vendor')}.ResourceHealth/events`;
  const params: Array<[string, string]> = [[HealthQuery.apiVersion, q.apiVersion]];
  if (q.filter !== undefined) params.push([HealthQuery.filter, q.filter]);
  if (q.queryStartTime !== undefined) params.push([HealthQuery.queryStartTime, q.queryStartTime]);
  return `${base}${path}?${params.map(([k, v]) => `${k}=${encodeQueryValue(v)}`).join('&')}`;
}

/** GET one page (first page URL or a `nextLink`); throws HealthApiError / AuthRequiredError. */
export async function eventsPageRequest(http: HttpClient, url: string, auth: CredentialProvider, signal?: AbortSignal): Promise<HealthEventsPage> {
  let res: Awaited<ReturnType<HttpClient['request']>>;
  try {
    res = await http.request({ url, auth, signal });
  } catch (e) {
    // Another origin's answer (a redirect's, sent no credential) is its own, not the health API's refusal.
    if (!(e instanceof HttpError) || e.otherOrigin) throw e;
    const err = new HealthApiError(e.status, 'GET', e.url, parseErrorResponse(e.body), e.body, e.headers);
    if (e.status === 401 || e.status === 403) {
      throw new AuthRequiredError(err.message, {
        cause: err,
        service: 'health',
        ...(e.status === 401
          ? { remedy: { kind: 'sign-in', service: 'health' } }
          : { hint: 'the signed-in account has no access to this subscription; check --subscription or sign in as another account' }),
      });
    }
    throw err;
  }
  if (res.status !== 200) {
    await res.dump();
    throw new LanyardError('bad_response', `the health API answered HTTP ${res.status} instead of 200`);
  }
  return processEventsPage(await res.json());
}

/** Checks a 200 body against the events list's wire type (every event and field; see core/wire). */
export function processEventsPage(body: unknown): HealthEventsPage {
  const b = checkWire('health', 'the events list', HealthEventsPageSchema, body);
  // Enumerations are checked as strings (a server may add values): the events are passed on as the server sent them.
  return { value: b.value as HealthEvent[], ...(b.nextLink ? { nextLink: b.nextLink } : {}) };
}

export interface PageOptions {
  /** Follow nextLink until absent. */
  all?: boolean;
  /** Stop after this many events (follows pages as needed). */
  max?: number;
  signal?: AbortSignal;
  /** Called after each page (for progress). */
  onPage?: (info: { page: number; count: number; nextLink?: string }) => void;
}

/**
 * Yields events page by page. Without `all` or `max` only the first page is
 * read. A nextLink is followed exactly as given, but only on the origin of the
 * first request (the bearer token is never sent to another host).
 */
export async function* iterateEvents(
  http: HttpClient,
  q: EventsQuery,
  auth: CredentialProvider,
  o: PageOptions = {},
): AsyncGenerator<HealthEvent, { nextLink?: string }> {
  let url: string | undefined = eventsUrl(q);
  const origin = new URL(url).origin;
  let yielded = 0;
  let page = 0;
  const seen = new Set<string>();
  while (url) {
    const p = await eventsPageRequest(http, url, auth, o.signal);
    page++;
    o.onPage?.({ page, count: p.value.length, nextLink: p.nextLink });
    for (const ev of p.value) {
      if (o.max !== undefined && yielded >= o.max) return { nextLink: url };
      yielded++;
      yield ev;
    }
    const next = p.nextLink;
    if (!next) return {};
    if (o.max !== undefined && yielded >= o.max) return { nextLink: next };
    if (!o.all && o.max === undefined) return { nextLink: next };
    let nextUrl: URL;
    try {
      nextUrl = new URL(next, url);
    } catch {
      throw new LanyardError('bad_response', `the health API answered with an invalid nextLink`);
    }
    if (nextUrl.origin !== origin)
      throw new LanyardError('bad_response', `refusing to follow a nextLink to another host (${nextUrl.origin}); the token is only sent to ${origin}`);
    if (seen.has(next)) throw new LanyardError('bad_response', 'the health API returned the same nextLink twice; stopping to avoid a loop');
    seen.add(next);
    url = /^https?:\/\//i.test(next) ? next : nextUrl.toString();
  }
  return {};
}

/** The event with this tracking id (`name`) among the events of the query, or undefined. */
export async function findEvent(
  http: HttpClient,
  q: EventsQuery,
  auth: CredentialProvider,
  trackingId: string,
  signal?: AbortSignal,
): Promise<HealthEvent | undefined> {
  const want = trackingId.toLowerCase();
  for await (const ev of iterateEvents(http, q, auth, { all: true, signal })) {
    if (ev.name?.toLowerCase() === want || ev.id?.toLowerCase().endsWith(`/events/${want}`)) return ev;
  }
  return undefined;
}
