/** `GET /subscriptions/{subscriptionId}/providers/<Vendor>.ResourceHealth/events` */
import { Health } from '../../../shared/constants.js';
import { HealthQuery, type HealthErrorResponse, type HealthEvent } from '../../../shared/health.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import type { EmulatorEnv } from '../../service.js';
import { BadRequest, decodeSkipToken, encodeSkipToken, parseFilter, parseQueryStartTime, type FilterTerm } from './query.js';
import { SEED, publicView } from './seed.js';
import { HealthEventsApiVersions, versionsWith, type HealthOperation } from './versions.js';
import type { HealthState } from './state.js';

/** `/subscriptions/{id}/providers/{ns}/events[/{trackingId}[/fetchEventDetails]]` */
const EVENTS_PATH = /^\/subscriptions\/([^/]*)\/providers\/([^/]+)\/events(?:\/([^/]+)(\/fetchEventDetails)?)?\/?$/i;

/** The flat ErrorResponse code of a status the routes did not answer themselves. */
const CODE_OF: Record<number, string> = {
  400: 'BadRequest',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'RequestEntityTooLarge',
  500: 'InternalServerError',
};

export function sendError(res: EmuResponse, status: number, e: HealthErrorResponse, headers: Record<string, string> = {}): void {
  res.json(status, e, { 'x-ms-failure-cause': status >= 500 ? 'service' : 'gateway', ...headers });
}

export function registerEventsRoute(router: Router, state: HealthState, env: EmulatorEnv): void {
  // Anything under the management paths that no route answers still gets an ErrorResponse.
  for (const prefix of ['/subscriptions', '/providers'])
    router.errorShape(prefix, (status, message) => ({
      body: { code: CODE_OF[status] ?? 'Error', message },
      headers: { 'x-ms-failure-cause': status >= 500 ? 'service' : 'gateway' },
    }));
  // A middleware rather than a route: a route's :param cannot see an empty segment,
  // and an empty subscriptionId must get an ErrorResponse too.
  router.use('/subscriptions', async (req, res, next) => {
    const m = EVENTS_PATH.exec(req.path);
    if (!m) return next();
    const trackingId = m[3] === undefined ? undefined : decodeSegment(m[3]);
    const op: HealthOperation = trackingId === undefined ? 'list' : m[4] ? 'fetchEventDetails' : 'get';
    const method = op === 'fetchEventDetails' ? 'POST' : 'GET';
    if (req.method !== method && !(method === 'GET' && req.method === 'HEAD')) {
      return sendError(res, 405, { code: 'MethodNotAllowed', message: `The method '${req.method}' is not allowed on this resource.` }, { allow: method });
    }
    try {
      const ctx = await common(req, state, env, decodeSegment(m[1]!), decodeSegment(m[2]!), op);
      if (op === 'list') return listEvents(req, res, state, env, ctx.subscriptionId);
      const ev = (state.events.get(ctx.subscriptionId) ?? []).find((e) => e.name?.toLowerCase() === trackingId!.toLowerCase());
      if (!ev)
        throw new BadRequest(
          'NotFound',
          `The event with tracking id '${trackingId}' could not be found in subscription '${ctx.subscriptionId}'.`,
          undefined,
          404,
        );
      res.json(200, op === 'get' ? publicView(ev) : ev);
    } catch (err) {
      if (!(err instanceof BadRequest)) throw err;
      const www = (err as BadRequest & { www?: Record<string, string> }).www;
      sendError(res, err.status, { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }, www);
    }
  });
}

/** What every events operation checks, in the order the service does: subscription id, token, api-version, namespace, access. */
async function common(req: EmuRequest, state: HealthState, env: EmulatorEnv, subscriptionId: string, provider: string, op: HealthOperation) {
  if (!subscriptionId)
    throw new BadRequest(
      'InvalidSubscriptionId',
      "The provided subscription identifier '' is malformed or invalid.",
      'subscriptionId must be at least one character long.',
    );
  const user = authenticate(req, state, env);
  const apiVersion = req.query.get(HealthQuery.apiVersion);
  if (!apiVersion) throw new BadRequest('MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required for all requests.');
  const ops = HealthEventsApiVersions[apiVersion];
  if (!ops) {
    throw new BadRequest(
      'InvalidApiVersionParameter',
      `The api-version '${apiVersion}' is invalid. The supported versions are '${Object.keys(HealthEventsApiVersions).join("','")}'.`,
    );
  }
  if (!ops.includes(op)) {
    throw new BadRequest(
      'NoRegisteredProviderFound',
      `No registered resource provider found for API version '${apiVersion}' and operation '${op}'. The supported api-versions are '${versionsWith(op).join("','")}'.`,
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
      `The client '${user}' does not have authorization to perform action 'Microsoft.ResourceHealth/events/${op === 'fetchEventDetails' ? 'fetchEventDetails/action' : 'read'}' over scope '/subscriptions/${subscriptionId}'.`,
      undefined,
      403,
    );
  }
  if (op === 'fetchEventDetails') {
    // The operation takes no body; one that is sent must at least be JSON.
    const text = (await req.text()).trim();
    if (text && /json/i.test(req.header('content-type') ?? '')) {
      try {
        JSON.parse(text);
      } catch {
        throw new BadRequest('InvalidRequestContent', 'The request content was invalid and could not be deserialized.');
      }
    }
  }
  return { subscriptionId, user };
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

function listEvents(req: EmuRequest, res: EmuResponse, state: HealthState, env: EmulatorEnv, subscriptionId: string): void {
  const events = state.events.get(subscriptionId);
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
  const body: { nextLink?: string; value: HealthEvent[] } = { value: page.map(publicView) };
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
