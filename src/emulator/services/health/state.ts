/** In-memory state of the health emulator: events per subscription, users, issued tokens. */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  EventLevelValues,
  EventSourceValues,
  EventStatusValues,
  EventSubTypeValues,
  EventTypeValues,
  LevelValues,
  type HealthEvent,
} from '../../../shared/health.js';
import { SEED, generateEvent, iso7, priorityOf, seedEvents, seedTenantEvents } from './seed.js';

export interface HealthUser {
  login: string;
  password: string;
  name: string;
  subscriptions: string[];
  /** May read the tenant's events (tenant-level operations). */
  tenantReader: boolean;
}

export interface IssuedToken {
  user: string;
  clientId: string;
  expiresAt: number;
}

export class HealthState {
  events = new Map<string, HealthEvent[]>();
  /** The tenant's own events (`/providers/<Vendor>.ResourceHealth/events`). */
  tenantEvents: HealthEvent[] = [];
  users = new Map<string, HealthUser>();
  tokens = new Map<string, IssuedToken>();
  clients = new Set<string>();
  pageSize: number = SEED.pageSize;
  tokenLifetimeSec: number = SEED.tokenLifetimeSec;
  #added = 0;

  constructor(private readonly now: () => number) {
    this.reset();
  }

  reset(): void {
    this.events = seedEvents(this.now());
    this.tenantEvents = seedTenantEvents(this.now());
    this.users = new Map([
      [SEED.user.login, { ...SEED.user, subscriptions: [SEED.subscriptionId, SEED.exampleSubscriptionId], tenantReader: true }],
      [SEED.guest.login, { ...SEED.guest, subscriptions: [], tenantReader: false }],
    ]);
    this.tokens = new Map([[SEED.token, { user: SEED.user.login, clientId: SEED.clientId, expiresAt: Number.MAX_SAFE_INTEGER }]]);
    this.clients = new Set([SEED.clientId]);
    this.pageSize = SEED.pageSize;
    this.tokenLifetimeSec = SEED.tokenLifetimeSec;
    this.#added = 0;
  }

  /** Signs the emulator's access tokens (HS256; the API looks tokens up, clients only read the claims). */
  readonly #signingKey = randomBytes(32);

  /**
   * An access token as the cloud sign-in host issues them: a signed JWT whose
   * claims name the user (`upn`, `unique_name`, `name`, `oid`), the tenant,
   * the application (`appid`), the scope and the validity (`iat`, `nbf`, `exp`).
   */
  issueToken(user: string, clientId: string, lifetimeSec = this.tokenLifetimeSec): { token: string; expiresIn: number } {
    const now = this.now();
    const iat = Math.floor(now / 1000);
    const u = this.users.get(user);
    const oid = createHash('sha256').update(user).digest('hex');
    const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const claims = {
      aud: SEED.audience,
      iss: `${SEED.issuer}/${SEED.tenantId}/`,
      iat,
      nbf: iat,
      exp: iat + lifetimeSec,
      appid: clientId,
      upn: user,
      unique_name: user,
      ...(u?.name ? { name: u.name } : {}),
      oid: `${oid.slice(0, 8)}-${oid.slice(8, 12)}-${oid.slice(12, 16)}-${oid.slice(16, 20)}-${oid.slice(20, 32)}`,
      tid: SEED.tenantId,
      scp: 'user_impersonation',
      ver: '1.0',
      jti: randomBytes(12).toString('base64url'),
    };
    const signed = `${part({ typ: 'JWT', alg: 'HS256' })}.${part(claims)}`;
    const token = `${signed}.${createHmac('sha256', this.#signingKey).update(signed).digest('base64url')}`;
    this.tokens.set(token, { user, clientId, expiresAt: now + lifetimeSec * 1000 });
    return { token, expiresIn: lifetimeSec };
  }

  find(subscriptionId: string, trackingId: string): HealthEvent {
    const ev = this.events.get(subscriptionId)?.find((e) => e.name?.toLowerCase() === trackingId.toLowerCase());
    if (!ev) throw new Error(`no event ${trackingId} in subscription ${subscriptionId}`);
    return ev;
  }

  /** Admin: add an event (fields given override a generated one; `tenant: true` adds it to the tenant's events); returns it. */
  addEvent(body: Record<string, unknown>): HealthEvent {
    const tenant = body.tenant === true;
    const sub = typeof body.subscriptionId === 'string' && body.subscriptionId ? body.subscriptionId : SEED.subscriptionId;
    const given = (body.event && typeof body.event === 'object' ? body.event : {}) as HealthEvent;
    const now = this.now();
    const base = generateEvent({ i: 100 + this.#added++, subscriptionId: sub, vendor: SEED.vendor, lastUpdateMs: now });
    const props = { ...base.properties, ...(given.properties ?? {}) };
    checkEnums(props as Record<string, unknown>);
    const ev: HealthEvent = { ...base, ...given, properties: props };
    if (given.name && !given.id) ev.id = `/providers/${SEED.vendor}.ResourceHealth/events/${given.name}`;
    if (!given.properties?.priority) props.priority = priorityOf(props.eventType, props.eventLevel, props.status);
    if (tenant) {
      if (this.tenantEvents.some((e) => e.name === ev.name)) throw new Error(`event ${ev.name} already exists in the tenant`);
      if (!given.properties?.impact)
        for (const imp of props.impact ?? [])
          for (const r of imp.impactedRegions ?? []) Object.assign(r, { impactedSubscriptions: [], impactedTenants: [SEED.tenantId] });
      this.tenantEvents.push(ev);
      return ev;
    }
    if (this.events.get(sub)?.some((e) => e.name === ev.name)) throw new Error(`event ${ev.name} already exists in ${sub}`);
    if (!this.events.has(sub)) this.events.set(sub, []);
    this.events.get(sub)!.push(ev);
    const owner = this.users.get(SEED.user.login);
    if (owner && !owner.subscriptions.includes(sub)) owner.subscriptions.push(sub);
    return ev;
  }

  /** Admin: Active → Resolved (every region too), with a final update; lastUpdateTime moves to now. */
  resolve(body: Record<string, unknown>): HealthEvent {
    const sub = typeof body.subscriptionId === 'string' && body.subscriptionId ? body.subscriptionId : SEED.subscriptionId;
    const id = String(body.trackingId ?? '');
    const ev = this.find(sub, id);
    const p = ev.properties!;
    if (p.status === 'Resolved') throw new Error(`event ${id} is already Resolved`);
    const now = iso7(this.now());
    const summary = typeof body.summary === 'string' && body.summary ? body.summary : 'Mitigated: engineering teams confirmed that the issue is resolved.';
    p.status = 'Resolved';
    p.impactMitigationTime = now;
    p.lastUpdateTime = now;
    if (p.title?.startsWith('ACTIVE:')) p.title = 'RESOLVED:' + p.title.slice('ACTIVE:'.length);
    if (p.hirStage) p.hirStage = 'resolved';
    p.priority = priorityOf(p.eventType, p.eventLevel, 'Resolved');
    for (const imp of p.impact ?? []) {
      for (const r of imp.impactedRegions ?? []) {
        r.status = 'Resolved';
        r.lastUpdateTime = now;
        r.updates = [{ eventTags: ['Preliminary PIR'], summary, updateDateTime: now }, ...(r.updates ?? [])];
      }
    }
    return ev;
  }
}

const ENUMS: Record<string, readonly string[]> = {
  eventType: EventTypeValues,
  eventSubType: EventSubTypeValues,
  eventLevel: EventLevelValues,
  level: LevelValues,
  eventSource: EventSourceValues,
  status: EventStatusValues,
};

function checkEnums(p: Record<string, unknown>): void {
  for (const [k, values] of Object.entries(ENUMS)) {
    if (p[k] !== undefined && !values.includes(p[k] as string)) throw new Error(`properties.${k} must be one of ${values.join(', ')}`);
  }
  if (p.priority !== undefined && (!Number.isInteger(p.priority) || (p.priority as number) < 0 || (p.priority as number) > 23)) {
    throw new Error('properties.priority must be an integer from 0 to 23');
  }
}
