/**
 * The official service-health SDK (@azure/arm-resourcehealth 4.x) against the
 * emulator on HTTPS (the SDK sends bearer tokens over TLS only): the events
 * list with paging, get and fetchEventDetails with its default api-version
 * (2022-10-01) and every published version of the events API the emulator
 * serves; errors parsed from the flat ErrorResponse.
 */
import { Agent } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { MicrosoftResourceHealth, type Event } from '@azure/arm-resourcehealth';
import { useInProcessEmulator } from './in-process-emulator.js';
import { HealthEventsApiVersions } from '../../src/emulator/services/health/versions.js';

const ref = useInProcessEmulator({ tls: true }, { resetEach: false });
let agent: Agent;
beforeAll(() => {
  agent = new Agent({ ca: ref.emu.tls!.ca, keepAlive: true });
});
afterAll(() => agent?.destroy());

function credential(token: string): TokenCredential {
  return { getToken: async (): Promise<AccessToken> => ({ token, expiresOnTimestamp: Date.now() + 3_600_000 }) };
}

function client(o: { apiVersion?: string; token?: string; subscriptionId?: string } = {}): MicrosoftResourceHealth {
  return new MicrosoftResourceHealth(credential(o.token ?? ref.emu.fixtures.health.token), o.subscriptionId ?? ref.emu.fixtures.health.subscriptionId, {
    endpoint: ref.emu.urls.health.management,
    ...(o.apiVersion ? { apiVersion: o.apiVersion } : {}),
    retryOptions: { maxRetries: 0 },
    // Trust the emulator's self-signed certificate for this client only.
    additionalPolicies: [
      {
        position: 'perCall',
        policy: {
          name: 'emulatorCa',
          sendRequest: (req, next) => {
            req.agent = agent;
            return next(req);
          },
        },
      },
    ],
  });
}

async function all(c: MicrosoftResourceHealth): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of c.eventsOperations.listBySubscriptionId()) out.push(e);
  return out;
}

describe('@azure/arm-resourcehealth against the emulator', () => {
  it('default api-version (2022-10-01): every page of the list, get, and fetchEventDetails of a sensitive event', async () => {
    const seen: string[] = [];
    const c = client();
    c.pipeline.addPolicy({
      name: 'spy',
      sendRequest: (req, next) => {
        seen.push(new URL(req.url).searchParams.get('api-version') ?? '');
        return next(req);
      },
    });
    // A sensitive event (the 2022-10-01 models have no isEventSensitive field: it is found by name).
    await ref.emu.admin('health', 'add-event', {
      event: { name: 'SENS-001', properties: { isEventSensitive: true, summary: 'Sensitive summary', description: '<p>Sensitive description</p>' } },
    });
    const events = await all(c);
    expect(events.length).toBeGreaterThan(10); // more than one page of 10
    expect(new Set(seen)).toEqual(new Set(['2022-10-01']));
    const sensitive = events.find((e) => e.name === 'SENS-001')!;
    expect(sensitive.summary).toBe('');
    expect(sensitive.description).toBeUndefined();

    const got = await c.eventOperations.getBySubscriptionIdAndTrackingId(sensitive.name!);
    expect(got.name).toBe(sensitive.name);
    expect(got.summary).toBe('');

    const details = await c.eventOperations.fetchDetailsBySubscriptionIdAndTrackingId(sensitive.name!);
    expect(details.summary).toBe('Sensitive summary');
    expect(details.description).toBe('<p>Sensitive description</p>');
    expect(details.impact![0]!.impactedRegions![0]!.updates![0]!.summary).toMatch(/\w/);
  });

  it('every published api-version the emulator serves: the operations it has work, the others are refused', async () => {
    const versions = Object.entries(HealthEventsApiVersions);
    expect(versions.map(([v]) => v)).toContain('2022-10-01');
    expect(versions.map(([v]) => v)).toContain('2025-05-01');
    const trackingId = (await all(client()))[0]!.name!;
    for (const [version, ops] of versions) {
      const c = client({ apiVersion: version });
      expect((await all(c)).length, version).toBeGreaterThan(0);
      const get = await c.eventOperations.getBySubscriptionIdAndTrackingId(trackingId).catch((e) => e);
      const fetch = await c.eventOperations.fetchDetailsBySubscriptionIdAndTrackingId(trackingId).catch((e) => e);
      for (const [op, r] of [
        ['get', get],
        ['fetchEventDetails', fetch],
      ] as const) {
        if ((ops as readonly string[]).includes(op)) expect(r.name, `${version} ${op}`).toBe(trackingId);
        else expect([r.statusCode, r.code], `${version} ${op}`).toEqual([400, 'NoRegisteredProviderFound']);
      }
    }
  });

  it("the tenant's events, one resource's events and impacted resources, through the SDK's own operations", async () => {
    const c = client();
    const tenant: Event[] = [];
    for await (const e of c.eventsOperations.listByTenantId({ queryStartTime: '1/1/2000' })) tenant.push(e);
    expect(tenant.length).toBeGreaterThan(0);
    // 2022-10-01's model has no isEventSensitive: a sensitive event is the one whose summary the list leaves blank.
    const sensitive = tenant.find((e) => e.summary === '')!;
    expect((await c.eventOperations.getByTenantIdAndTrackingId(sensitive.name!)).summary).toBe('');
    expect((await c.eventOperations.fetchDetailsByTenantIdAndTrackingId(sensitive.name!)).summary).toMatch(/\w/);

    const ev = (await all(c))[0]!;
    const impacted = [];
    for await (const r of c.impactedResources.listBySubscriptionIdAndEventId(ev.name!)) impacted.push(r);
    expect(impacted.length).toBeGreaterThan(0);
    // The SDK flattens `properties` (x-ms-client-flatten).
    const one = await c.impactedResources.get(ev.name!, impacted[0]!.name!);
    expect([one.name, one.targetResourceId, one.targetRegion]).toEqual([impacted[0]!.name, impacted[0]!.targetResourceId, impacted[0]!.targetRegion]);
    const byResource: Event[] = [];
    for await (const e of c.eventsOperations.listBySingleResource(one.targetResourceId!.slice(1))) byResource.push(e);
    expect(byResource.map((e) => e.name)).toContain(ev.name);

    const tenantImpacted = [];
    for await (const r of c.impactedResources.listByTenantIdAndEventId(tenant[0]!.name!)) tenantImpacted.push(r);
    expect((await c.impactedResources.getByTenantId(tenant[0]!.name!, tenantImpacted[0]!.name!)).name).toBe(tenantImpacted[0]!.name);

    const advisory = (await all(c)).find((e) => e.eventType === 'SecurityAdvisory')!;
    const secure = [];
    for await (const r of c.securityAdvisoryImpactedResources.listBySubscriptionIdAndEventId(advisory.name!)) secure.push(r);
    expect(secure.length).toBeGreaterThan(0);
    expect(secure[0]!.info!.length).toBeGreaterThan(0);
  });

  it('errors arrive as RestError with the ErrorResponse code and message', async () => {
    const unknownVersion = await all(client({ apiVersion: '2099-01-01' })).catch((e) => e);
    expect([unknownVersion.statusCode, unknownVersion.code]).toEqual([400, 'InvalidApiVersionParameter']);
    const badToken = await all(client({ token: 'not-a-token' })).catch((e) => e);
    expect([badToken.statusCode, badToken.code]).toEqual([401, 'InvalidAuthenticationToken']);
    const missing = await client()
      .eventOperations.getBySubscriptionIdAndTrackingId('NO-SUCH-EVENT')
      .catch((e) => e);
    expect([missing.statusCode, missing.code]).toEqual([404, 'NotFound']);
    expect(missing.message).toMatch(/NO-SUCH-EVENT/);
  });
});
