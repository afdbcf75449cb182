/** `GET /subscriptions/{subscriptionId}/providers/<Vendor>.ResourceHealth/events` */
import { Health } from '../../../shared/constants.js';
import { HealthApiVersions, HealthQuery, type HealthErrorResponse, type HealthEvent } from '../../../shared/health.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import type { EmulatorEnv } from '../../service.js';
import { BadRequest, decodeSkipToken, encodeSkipToken, parseFilter, parseQueryStartTime, type FilterTerm } from './query.js';
import { SEED } from './seed.js';
import type { HealthState } from './state.js';

const EVENTS_PATH = /^\/subscriptions\/([^/]*)\/providers\/([^/]+)\/events\/?$/i;

export function sendError(res: EmuResponse, status: number, e: HealthErrorResponse, headers: Record<string, string> = {}): void {
  res.json(status, e, { 'x-ms-failure-cause': status >= 500 ? 'service' : 'gateway', ...headers });
}

export function registerEventsRoute(router: Router, state: HealthState, env: EmulatorEnv): void {
  // A middleware rather than a route: a route's :param cannot see an empty segment,
  // and an empty subscriptionId must get an ErrorResponse too.
  router.use('/subscriptions', async (req, res, next) => {
    const m = EVENTS_PATH.exec(req.path);
    if (!m) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendError(res, 405, { code: 'MethodNotAllowed', message: `The method '${req.method}' is not allowed on this resource.` }, { allow: 'GET' });
    }
    try {
      listEvents(req, res, state, env, decodeSegment(m[1]!), decodeSegment(m[2]!));
    } catch (err) {
      if (!(err instanceof BadRequest)) throw err;
      sendError(res, err.status, { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) });
    }
  });
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function authenticate(req: EmuRequest, state: HealthState, env: EmulatorEnv): string {
  const h = req.header('authorization');
  const www = { 'www-authenticate': `Bearer authorization_uri="${env.baseUrl()}${Health.authorizePath}", error="invalid_token"` };
  if (!h) throw Object.assign(new BadRequest('AuthenticationFailed', "Authentication failed. The 'Authorization' header is missing.", undefined, 401), { www });
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (!m)
    throw Object.assign(
      new BadRequest('AuthenticationFailed', "Authentication failed. The 'Authorization' header is provided in an invalid format.", undefined, 401),
      { www },
    );
  const t = state.tokens.get(m[1]!);
  if (!t) throw Object.assign(new BadRequest('InvalidAuthenticationToken', 'The access token is invalid.', undefined, 401), { www });
  const now = env.clock.now();
  if (t.expiresAt <= now) {
    throw Object.assign(
      new BadRequest(
        'ExpiredAuthenticationToken',
        `The access token expiry UTC time '${new Date(t.expiresAt).toISOString()}' is earlier than current UTC time '${new Date(now).toISOString()}'.`,
        undefined,
        401,
      ),
      { www },
    );
  }
  return t.user;
}

function listEvents(req: EmuRequest, res: EmuResponse, state: HealthState, env: EmulatorEnv, subscriptionId: string, provider: string): void {
  if (!subscriptionId)
    throw new BadRequest(
      'InvalidSubscriptionId',
      "The provided subscription identifier '' is malformed or invalid.",
      'subscriptionId must be at least one character long.',
    );
  let user: string;
  try {
    user = authenticate(req, state, env);
  } catch (err) {
    const e = err as BadRequest & { www?: Record<string, string> };
    return sendError(res, 401, { code: e.code, message: e.message }, e.www);
  }
  const apiVersion = req.query.get(HealthQuery.apiVersion);
  if (!apiVersion) throw new BadRequest('MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required for all requests.');
  if (!(HealthApiVersions as readonly string[]).includes(apiVersion)) {
    throw new BadRequest(
      'InvalidApiVersionParameter',
      `The api-version '${apiVersion}' is invalid. The supported versions are '${HealthApiVersions.join("','")}'.`,
    );
  }
  if (provider.toLowerCase() !== `${SEED.vendor}.ResourceHealth`.toLowerCase()) {
    throw new BadRequest('InvalidResourceNamespace', `The resource namespace '${provider}' is invalid.`, undefined, 404);
  }
  const events = state.events.get(subscriptionId);
  const owner = state.users.get(user);
  if (!events && !owner?.subscriptions.includes(subscriptionId))
    throw new BadRequest('SubscriptionNotFound', `The subscription '${subscriptionId}' could not be found.`, undefined, 404);
  if (!owner?.subscriptions.includes(subscriptionId)) {
    throw new BadRequest(
      'AuthorizationFailed',
      `The client '${user}' does not have authorization to perform action 'Microsoft.ResourceHealth/events/read' over scope '/subscriptions/${subscriptionId}'.`,
      undefined,
      403,
    );
  }
  const filterText = req.query.get(HealthQuery.filter);
  const terms = filterText === null ? undefined : parseFilter(filterText);
  const skip = req.query.get(HealthQuery.skipToken);
  const pos = skip === null ? undefined : decodeSkipToken(skip);
  const startText = req.query.get(HealthQuery.queryStartTime);
  const windowStart = pos?.s ?? (startText ? parseQueryStartTime(startText) : env.clock.now() - Health.defaultWindowDays * 86_400_000);

  const matching = (events ?? [])
    .filter((e) => time(e) >= windowStart && (!terms || terms.some((t) => matches(e, t))))
    .sort((a, b) => time(b) - time(a) || (a.name ?? '').localeCompare(b.name ?? ''));
  const after = pos ? matching.filter((e) => time(e) < pos.t || (time(e) === pos.t && (e.name ?? '') > pos.n)) : matching;
  const page = after.slice(0, state.pageSize);
  const body: { nextLink?: string; value: HealthEvent[] } = { value: page };
  if (after.length > page.length) {
    const last = page[page.length - 1]!;
    const token = encodeSkipToken({ t: time(last), n: last.name ?? '', s: windowStart, p: (pos?.p ?? 1) + 1 });
    body.nextLink = nextLink(env.baseUrl(), req, token);
  }
  res.json(200, body);
}

function time(e: HealthEvent): number {
  return Date.parse(e.properties?.lastUpdateTime ?? '') || 0;
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, '');

function matches(e: HealthEvent, t: FilterTerm): boolean {
  const want = norm(t.value);
  for (const imp of e.properties?.impact ?? []) {
    if (t.property === 'service' && norm(imp.impactedService ?? '') === want) return true;
    if (t.property === 'region' && (imp.impactedRegions ?? []).some((r) => norm(r.impactedRegion ?? '') === want)) return true;
  }
  return false;
}

/** The original request URL (as the client encoded it) with `$skipToken` set. */
function nextLink(base: string, req: EmuRequest, token: string): string {
  const raw = req.raw.url ?? req.path;
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const kept = (q < 0 ? '' : raw.slice(q + 1)).split('&').filter((p) => p && !/^(\$|%24)skiptoken=/i.test(p));
  kept.push(`${HealthQuery.skipToken}=${token}`);
  return `${base}${path}?${kept.join('&')}`;
}
