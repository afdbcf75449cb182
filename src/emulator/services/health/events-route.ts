/**
 * The events operations of the service-health API (Resource Health
 * 2025-05-01): a subscription's events (list, get, fetchEventDetails,
 * fetchBillingCommunicationDetails, impacted resources, a security
 * advisory's impacted resources), the tenant's (the same but billing) and one
 * resource's (`/{resourceUri}/providers/<Vendor>.ResourceHealth/events`).
 */
import { Health } from '../../../shared/constants.js';
import { HealthQuery, type HealthErrorResponse, type HealthEvent } from '../../../shared/health.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import type { EmulatorEnv } from '../../service.js';
import { BadRequest, decodeSkipToken, encodeSkipToken, parseFilter, parseQueryStartTime, type FilterTerm } from './query.js';
import { impactedResources } from './impacted.js';
import { SEED, publicView } from './seed.js';
import { HealthEventsApiVersions, versionsWith, type HealthOperation } from './versions.js';
import type { HealthState } from './state.js';

/** `/subscriptions/{id}/providers/{ns}/events[/{trackingId}[/{action}[/{name}]]]` */
const SUBSCRIPTION_PATH = /^\/subscriptions\/([^/]*)\/providers\/([^/]+)\/events(?:\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?)?\/?$/i;
/** `/providers/{ns}/events[/{trackingId}[/{action}[/{name}]]]`: the tenant's events. */
const TENANT_PATH = /^\/providers\/([^/]+)\/events(?:\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?)?\/?$/i;
/** `/{resourceUri}/providers/{ns}/events`, the resource in a resource group of a subscription. */
const RESOURCE_PATH = /^\/(subscriptions\/([^/]*)\/resourceGroups\/[^/]+\/providers\/[^/]+(?:\/[^/]+\/[^/]+)+)\/providers\/([^/]+)\/events\/?$/i;

/** The flat ErrorResponse code of a status the routes did not answer themselves. */
const CODE_OF: Record<number, string> = {
  400: 'BadRequest',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'RequestEntityTooLarge',
  500: 'InternalServerError',
};

/** Where an operation looks: a subscription, the tenant, or one resource (in a subscription). */
type Scope = { kind: 'subscription'; subscriptionId: string } | { kind: 'tenant' } | { kind: 'resource'; subscriptionId: string; resourceUri: string };

interface Call {
  scope: Scope;
  provider: string;
  op: HealthOperation;
  trackingId?: string;
  resourceName?: string;
}

/** The path's action segment → the operation, per scope. POST ones are actions, the rest reads. */
const ACTIONS: Record<string, { subscription?: HealthOperation; tenant?: HealthOperation; named?: [HealthOperation, HealthOperation] }> = {
  fetcheventdetails: { subscription: 'fetchEventDetails', tenant: 'tenantFetchEventDetails' },
  fetchbillingcommunicationdetails: { subscription: 'fetchBillingCommunicationDetails' },
  listsecurityadvisoryimpactedresources: { subscription: 'securityAdvisoryImpactedResources', tenant: 'tenantSecurityAdvisoryImpactedResources' },
  impactedresources: { subscription: 'impactedResources', tenant: 'tenantImpactedResources', named: ['impactedResource', 'tenantImpactedResource'] },
};
const POST_OPS = new Set<HealthOperation>([
  'fetchEventDetails',
  'tenantFetchEventDetails',
  'fetchBillingCommunicationDetails',
  'securityAdvisoryImpactedResources',
  'tenantSecurityAdvisoryImpactedResources',
]);

/** The permission each operation needs (as the service names it in AuthorizationFailed). */
function permissionOf(op: HealthOperation): string {
  if (op === 'fetchEventDetails' || op === 'tenantFetchEventDetails') return 'events/fetchEventDetails/action';
  if (op === 'fetchBillingCommunicationDetails') return 'events/fetchBillingCommunicationDetails/action';
  if (op.endsWith('ecurityAdvisoryImpactedResources')) return 'events/listSecurityAdvisoryImpactedResources/action';
  if (op.includes('mpactedResource')) return 'events/impactedResources/read';
  return 'events/read';
}

/** Which call a path is, or undefined (not an events path, or an action the service does not have). */
function callOf(path: string): Call | undefined {
  const r = RESOURCE_PATH.exec(path);
  if (r) {
    return {
      scope: { kind: 'resource', subscriptionId: decodeSegment(r[2]!), resourceUri: decodeSegment(r[1]!) },
      provider: decodeSegment(r[3]!),
      op: 'resourceList',
    };
  }
  const sub = SUBSCRIPTION_PATH.exec(path);
  const ten = sub ? undefined : TENANT_PATH.exec(path);
  if (!sub && !ten) return undefined;
  const [provider, trackingId, action, name] = (sub ? sub.slice(2) : ten!.slice(1)).map((x) => (x === undefined ? undefined : decodeSegment(x)));
  const scope: Scope = sub ? { kind: 'subscription', subscriptionId: decodeSegment(sub[1]!) } : { kind: 'tenant' };
  const kind = sub ? 'subscription' : 'tenant';
  const base = { scope, provider: provider!, trackingId, resourceName: name };
  if (trackingId === undefined) return { ...base, op: sub ? 'list' : 'tenantList' };
  if (action === undefined) return { ...base, op: sub ? 'get' : 'tenantGet' };
  const a = ACTIONS[action.toLowerCase()];
  const op = name === undefined ? a?.[kind] : a?.named?.[sub ? 0 : 1];
  return op ? { ...base, op } : undefined;
}

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
  // Middleware rather than routes: a route's :param cannot see an empty segment,
  // and an empty subscriptionId must get an ErrorResponse too.
  const serve = async (req: EmuRequest, res: EmuResponse, next: () => Promise<void>) => {
    const call = callOf(req.path);
    if (!call) return next();
    const method = POST_OPS.has(call.op) ? 'POST' : 'GET';
    if (req.method !== method && !(method === 'GET' && req.method === 'HEAD')) {
      return sendError(res, 405, { code: 'MethodNotAllowed', message: `The method '${req.method}' is not allowed on this resource.` }, { allow: method });
    }
    try {
      await common(req, state, env, call);
      answer(req, res, state, env, call);
    } catch (err) {
      if (!(err instanceof BadRequest)) throw err;
      const www = (err as BadRequest & { www?: Record<string, string> }).www;
      sendError(res, err.status, { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }, www);
    }
  };
  router.use('/subscriptions', serve);
  router.use('/providers', serve);
}

/** Answers a checked call. */
function answer(req: EmuRequest, res: EmuResponse, state: HealthState, env: EmulatorEnv, call: Call): void {
  const { scope, op } = call;
  if (op === 'list') return listEvents(req, res, env, state.events.get((scope as { subscriptionId: string }).subscriptionId) ?? [], state.pageSize);
  if (op === 'tenantList') return listEvents(req, res, env, state.tenantEvents, state.pageSize);
  if (op === 'resourceList') {
    const { subscriptionId, resourceUri } = scope as { subscriptionId: string; resourceUri: string };
    const target = `/${resourceUri}`.toLowerCase();
    const hits = (state.events.get(subscriptionId) ?? []).filter((e) =>
      impactedResources(e, { vendor: SEED.vendor, subscriptionId, scope: '' }).some((r) => r.properties.targetResourceId?.toLowerCase() === target),
    );
    return listEvents(req, res, env, hits, state.pageSize, { window: false });
  }
  const ev = eventOf(state, call);
  if (op === 'get' || op === 'tenantGet') return res.json(200, publicView(ev));
  if (op === 'fetchEventDetails' || op === 'tenantFetchEventDetails' || op === 'fetchBillingCommunicationDetails') return res.json(200, ev);
  const subscriptionId = scope.kind === 'tenant' ? SEED.subscriptionId : scope.subscriptionId;
  const security = op === 'securityAdvisoryImpactedResources' || op === 'tenantSecurityAdvisoryImpactedResources';
  let resources = impactedResources(ev, {
    vendor: SEED.vendor,
    subscriptionId,
    scope: scope.kind === 'tenant' ? '' : `/subscriptions/${subscriptionId}`,
    securityInfo: security,
  });
  // Only a security advisory has resources with sensitive information to list.
  if (security && ev.properties?.eventType !== 'SecurityAdvisory') resources = [];
  if (op === 'impactedResource' || op === 'tenantImpactedResource') {
    const one = resources.find((r) => r.name.toLowerCase() === call.resourceName!.toLowerCase());
    if (!one) {
      throw new BadRequest('NotFound', `The impacted resource '${call.resourceName}' could not be found for the event '${ev.name}'.`, undefined, 404);
    }
    return res.json(200, one);
  }
  const filterText = req.query.get(HealthQuery.filter);
  const terms = filterText === null ? undefined : parseFilter(filterText, IMPACTED_FILTER);
  const norm = (v: string | undefined) => (v ?? '').toLowerCase().replace(/\s+/g, '');
  const value = terms
    ? resources.filter((r) => terms.some((t) => norm(r.properties[t.property as (typeof IMPACTED_FILTER)[number]]) === norm(t.value)))
    : resources;
  res.json(200, { value });
}

/** The `$filter` properties of the impacted-resources lists (the published example filters on targetRegion). */
const IMPACTED_FILTER = ['targetRegion', 'targetResourceType', 'targetResourceId'] as const;

/** The event a call names, or a 404 NotFound. */
function eventOf(state: HealthState, call: Call): HealthEvent {
  const id = call.trackingId!.toLowerCase();
  const scope = call.scope;
  const events = scope.kind === 'tenant' ? state.tenantEvents : (state.events.get(scope.subscriptionId) ?? []);
  const ev = events.find((e) => e.name?.toLowerCase() === id);
  if (ev) return ev;
  const where = scope.kind === 'tenant' ? 'the tenant' : `subscription '${scope.subscriptionId}'`;
  throw new BadRequest('NotFound', `The event with tracking id '${call.trackingId}' could not be found in ${where}.`, undefined, 404);
}

/** What every events operation checks, in the order the service does: subscription id, token, api-version, namespace, access. */
async function common(req: EmuRequest, state: HealthState, env: EmulatorEnv, call: Call): Promise<void> {
  const { scope, provider, op } = call;
  const subscriptionId = scope.kind === 'tenant' ? undefined : scope.subscriptionId;
  if (subscriptionId === '')
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
  const owner = state.users.get(user);
  const refuse = (over: string) =>
    new BadRequest(
      'AuthorizationFailed',
      `The client '${user}' does not have authorization to perform action '${SEED.vendor}.ResourceHealth/${permissionOf(op)}' over scope '${over}'.`,
      undefined,
      403,
    );
  if (subscriptionId === undefined) {
    if (!owner?.tenantReader) throw refuse('/');
  } else {
    const mine = owner?.subscriptions.includes(subscriptionId);
    if (!state.events.has(subscriptionId) && !mine)
      throw new BadRequest('SubscriptionNotFound', `The subscription '${subscriptionId}' could not be found.`, undefined, 404);
    if (!mine) throw refuse(scope.kind === 'resource' ? `/${scope.resourceUri}` : `/subscriptions/${subscriptionId}`);
  }
  if (POST_OPS.has(op)) {
    // The actions take no body; one that is sent must at least be JSON.
    const text = (await req.text()).trim();
    if (text && /json/i.test(req.header('content-type') ?? '')) {
      try {
        JSON.parse(text);
      } catch {
        throw new BadRequest('InvalidRequestContent', 'The request content was invalid and could not be deserialized.');
      }
    }
  }
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

/** A page of events, newest first; `window: false` (one resource's events) takes no queryStartTime and no default window. */
function listEvents(req: EmuRequest, res: EmuResponse, env: EmulatorEnv, events: HealthEvent[], pageSize: number, o: { window?: boolean } = {}): void {
  const filterText = req.query.get(HealthQuery.filter);
  const terms = filterText === null ? undefined : parseFilter(filterText);
  const skip = req.query.get(HealthQuery.skipToken);
  const pos = skip === null ? undefined : decodeSkipToken(skip);
  const startText = req.query.get(HealthQuery.queryStartTime);
  const windowStart =
    o.window === false ? 0 : (pos?.s ?? (startText ? parseQueryStartTime(startText) : env.clock.now() - Health.defaultWindowDays * 86_400_000));

  const matching = events
    .filter((e) => time(e) >= windowStart && (!terms || terms.some((t) => matches(e, t))))
    .sort((a, b) => time(b) - time(a) || (a.name ?? '').localeCompare(b.name ?? ''));
  const after = pos ? matching.filter((e) => time(e) < pos.t || (time(e) === pos.t && (e.name ?? '') > pos.n)) : matching;
  const page = after.slice(0, pageSize);
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
