/**
 * The service-health answers against the published Resource Health
 * 2025-05-01 description (the vendored extract health/resourcehealth-2025-05-01.json,
 * source repository, path and commit in its `x-extract`) and its examples
 * (health/examples/, SOURCES.md): every events operation the emulator serves
 * — the subscription's, the tenant's and one resource's events, an event by
 * tracking id, fetchEventDetails, fetchBillingCommunicationDetails, impacted
 * resources and a security advisory's impacted resources — and their errors
 * (the flat ErrorResponse) validate with Ajv, so a drift fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../e2e/in-process-emulator.js';
import { PublishedDescription } from './validate.js';

const read = (p: string) => JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8'));
const spec = new PublishedDescription(read('./health/resourcehealth-2025-05-01.json'), 'https://lanyard.test/resourcehealth-2025-05-01');
const ref = useInProcessEmulator();
const NS = '/providers/Microsoft.ResourceHealth';

interface Ev {
  name: string;
  properties: Record<string, unknown> & {
    eventType?: string;
    isEventSensitive?: boolean;
    summary?: string;
    impact?: Array<{ impactedRegions?: Array<{ impactedTenants?: string[] }> }>;
  };
}
interface Res {
  id: string;
  name: string;
  type: string;
  properties: { targetResourceId?: string; targetRegion?: string; targetResourceType?: string; info?: Array<{ key: string; value: string }> };
}

async function call(method: string, path: string, o: { token?: string; version?: string; query?: string } = {}) {
  const q = `api-version=${o.version ?? '2025-05-01'}${o.query ? `&${o.query}` : ''}`;
  const res = await fetch(`${ref.emu.urls.health.management}${path}?${q}`, {
    method,
    headers: { authorization: `Bearer ${o.token ?? ref.emu.fixtures.health.token}` },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Calls and checks the answer against the description; returns the body. */
async function published<T = Record<string, unknown>>(method: string, path: string, status: number, o: Parameters<typeof call>[2] = {}): Promise<T> {
  const r = await call(method, path, o);
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(status);
  expect(spec.check(method, path, r.status, r.body), `${method} ${path}`).toEqual([]);
  return r.body as T;
}

const sub = () => `/subscriptions/${ref.emu.fixtures.health.subscriptionId}${NS}`;
const events = async (path: string) => (await published<{ value: Ev[] }>('GET', path, 200, { query: 'queryStartTime=1/1/2000' })).value;

describe('Resource Health 2025-05-01: the operations the emulator serves satisfy the published description', () => {
  it('the published examples satisfy the extract (it is a faithful copy), and the extract refuses what it does not describe', () => {
    expect(spec.check('GET', `${NS}/events`, 200, { value: [{ properties: { eventType: 'Outage', priority: 1.5 } }] })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/eventType must be equal to one of the allowed values/),
        expect.stringMatching(/priority must be integer/),
      ]),
    );
    expect(spec.check('GET', `${NS}/events`, 200, {})).not.toEqual([]);
    for (const [file, method, path] of [
      ['ImpactedResources_ListBySubscriptionId_ListByEventId', 'GET', `/subscriptions/s${NS}/events/BC_1-FXZ/impactedResources`],
      [
        'SecurityAdvisoryImpactedResources_ListBySubscriptionId_ListByEventId',
        'POST',
        `/subscriptions/s${NS}/events/BC_1-FXZ/listSecurityAdvisoryImpactedResources`,
      ],
      ['Event_fetchBillingCommunicationDetailsBySubscriptionIdAndTrackingId', 'POST', `/subscriptions/s${NS}/events/x/fetchBillingCommunicationDetails`],
    ] as const) {
      expect(spec.check(method, path, 200, read(`./health/examples/${file}.json`).responses['200'].body), file).toEqual([]);
    }
  });

  it("the tenant's events: list, by tracking id, fetchEventDetails with a sensitive event's content", async () => {
    const list = await events(`${NS}/events`);
    expect(list.length).toBeGreaterThan(0);
    for (const e of list) for (const imp of e.properties.impact ?? []) for (const r of imp.impactedRegions ?? []) expect(r.impactedTenants).toHaveLength(1);
    const sensitive = list.find((e) => e.properties.isEventSensitive)!;
    expect(sensitive.properties.summary).toBe('');
    const one = await published<Ev>('GET', `${NS}/events/${sensitive.name}`, 200);
    expect(one.properties.summary).toBe('');
    const details = await published<Ev>('POST', `${NS}/events/${sensitive.name}/fetchEventDetails`, 200);
    expect(details.properties.summary).toMatch(/\w/);
    // An event added to the tenant (admin verb) is served there, impacting the tenant.
    await ref.emu.admin('health', 'add-event', { tenant: true, event: { name: 'LY-TENANT-1' } });
    const added = await published<Ev>('GET', `${NS}/events/LY-TENANT-1`, 200);
    expect(added.properties.impact![0]!.impactedRegions![0]!.impactedTenants).toHaveLength(1);
    // A subscription's event is not the tenant's.
    const subEvent = (await events(`${sub()}/events`))[0]!;
    expect((await call('GET', `${NS}/events/${subEvent.name}`)).body.code).toBe('NotFound');
  });

  it("a billing event's communication details (2025-05-01 only)", async () => {
    const billing = (await events(`${sub()}/events`)).find((e) => e.properties.eventType === 'Billing')!;
    const path = `${sub()}/events/${billing.name}/fetchBillingCommunicationDetails`;
    const details = await published<Ev>('POST', path, 200);
    const example = read('./health/examples/Event_fetchBillingCommunicationDetailsBySubscriptionIdAndTrackingId.json').responses['200'].body;
    for (const k of ['billingId', 'currencyType', 'newRate', 'oldRate', 'eventSubType'])
      expect([k, typeof details.properties[k]]).toEqual([k, typeof example.properties[k]]);
    const older = await published<{ code: string }>('POST', path, 400, { version: '2024-02-01' });
    expect(older.code).toBe('NoRegisteredProviderFound');
    expect((await call('GET', path)).status).toBe(405);
  });

  it("an event's impacted resources (subscription and tenant), one by name, and $filter on targetRegion", async () => {
    const ev = (await events(`${sub()}/events`))[0]!;
    const list = (await published<{ value: Res[] }>('GET', `${sub()}/events/${ev.name}/impactedResources`, 200)).value;
    expect(list.length).toBeGreaterThan(0);
    const example = read('./health/examples/ImpactedResources_ListBySubscriptionId_ListByEventId.json').responses['200'].body.value[0];
    for (const r of list) {
      expect(Object.keys(r).sort()).toEqual(Object.keys(example).sort());
      expect(Object.keys(r.properties).sort()).toEqual(Object.keys(example.properties).sort());
      expect(r.id).toBe(`${sub()}/events/${ev.name}/impactedResources/${r.name}`);
      expect(r.type).toBe(example.type);
    }
    const first = list[0]!;
    expect(await published('GET', `${sub()}/events/${ev.name}/impactedResources/${first.name}`, 200)).toEqual(first);
    const filtered = (
      await published<{ value: Res[] }>('GET', `${sub()}/events/${ev.name}/impactedResources`, 200, {
        query: `$filter=${encodeURIComponent(`targetRegion eq '${first.properties.targetRegion}'`)}`,
      })
    ).value;
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((r) => r.properties.targetRegion === first.properties.targetRegion)).toBe(true);
    const missing = await published<{ code: string }>('GET', `${sub()}/events/${ev.name}/impactedResources/no-such-resource`, 404);
    expect(missing.code).toBe('NotFound');

    const tenantEvent = (await events(`${NS}/events`))[0]!;
    const tenantList = (await published<{ value: Res[] }>('GET', `${NS}/events/${tenantEvent.name}/impactedResources`, 200)).value;
    expect(tenantList[0]!.id).toBe(`${NS}/events/${tenantEvent.name}/impactedResources/${tenantList[0]!.name}`);
    await published('GET', `${NS}/events/${tenantEvent.name}/impactedResources/${tenantList[0]!.name}`, 200);
  });

  it("a security advisory's impacted resources carry info; another event's list is empty", async () => {
    const all = await events(`${sub()}/events`);
    const advisory = all.find((e) => e.properties.eventType === 'SecurityAdvisory')!;
    const list = (await published<{ value: Res[] }>('POST', `${sub()}/events/${advisory.name}/listSecurityAdvisoryImpactedResources`, 200)).value;
    expect(list.length).toBeGreaterThan(0);
    for (const r of list) expect(r.properties.info!.length).toBeGreaterThan(0);
    const other = all.find((e) => e.properties.eventType === 'ServiceIssue')!;
    expect(await published('POST', `${sub()}/events/${other.name}/listSecurityAdvisoryImpactedResources`, 200)).toEqual({ value: [] });
    const tenantAdvisory = (await events(`${NS}/events`)).find((e) => e.properties.eventType === 'SecurityAdvisory');
    if (tenantAdvisory) await published('POST', `${NS}/events/${tenantAdvisory.name}/listSecurityAdvisoryImpactedResources`, 200);
    // The list of impacted resources, not this action, is a read.
    expect((await call('GET', `${sub()}/events/${advisory.name}/listSecurityAdvisoryImpactedResources`)).status).toBe(405);
  });

  it('the events of a single resource: those that impact it', async () => {
    const ev = (await events(`${sub()}/events`))[0]!;
    const target = (await published<{ value: Res[] }>('GET', `${sub()}/events/${ev.name}/impactedResources`, 200)).value[0]!.properties.targetResourceId!;
    const list = (await published<{ value: Ev[] }>('GET', `${target}${NS}/events`, 200)).value;
    expect(list.map((e) => e.name)).toContain(ev.name);
    const nothing = (await published<{ value: Ev[] }>('GET', `${target.replace(/[^/]+$/, 'not-impacted')}${NS}/events`, 200)).value;
    expect(nothing).toEqual([]);
  });

  it('refusals in the ErrorResponse shape: no tenant access, an unknown event, a version without the operation', async () => {
    const guest = (await ref.emu.admin('health', 'issue-token', { login: 'guest@fabrikam.example' })) as { access_token: string };
    const denied = await published<{ code: string; message: string }>('GET', `${NS}/events`, 403, { token: guest.access_token });
    expect(denied.code).toBe('AuthorizationFailed');
    expect(denied.message).toMatch(/over scope '\/'/);
    expect((await published<{ code: string }>('GET', `${NS}/events/NO-SUCH`, 404)).code).toBe('NotFound');
    expect((await published<{ code: string }>('GET', `${NS}/events`, 400, { version: '2099-01-01' })).code).toBe('InvalidApiVersionParameter');
    const ev = (await events(`${sub()}/events`))[0]!;
    const old = await published<{ code: string }>('POST', `${sub()}/events/${ev.name}/listSecurityAdvisoryImpactedResources`, 400, {
      version: '2022-05-01-preview',
    });
    expect(old.code).toBe('NoRegisteredProviderFound');
  });
});
