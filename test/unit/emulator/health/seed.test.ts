/**
 * The health emulator's seed is a function of the clock alone: the same
 * instant gives the same events, to the byte (tests and the docs quote them).
 * The digest below pins the JSON of every seeded event at one instant, key
 * order included; the coverage the seed promises is checked in the open.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EventLevelValues, EventStatusValues, EventSubTypeValues, EventTypeValues, type HealthEvent } from '../../../../src/shared/health.js';
import { SEED, seedEvents, seedTenantEvents } from '../../../../src/emulator/services/health/seed.js';

const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);
/** sha256 of the JSON of seedEvents(NOW) and seedTenantEvents(NOW) (see `seeded()`). */
const DIGEST = 'e84b2690a5dec13d04418aa994b812d4d3163ffc2e63a4e60d1b3ccbfd65a535';

const seeded = (vendor?: string) => JSON.stringify({ events: [...seedEvents(NOW, vendor)], tenant: seedTenantEvents(NOW, vendor) });

describe('the health seed', () => {
  it('gives the same events, to the byte, for the same instant', () => {
    expect(seeded()).toBe(seeded());
    // A change of the generated events fails here: tests and docs quote them. Meant: record the new digest.
    expect(createHash('sha256').update(seeded()).digest('hex')).toBe(DIGEST);
  });

  it('covers every type, level, status and the billing sub-types, with sensitive and high-impact events', () => {
    const events = seedEvents(NOW).get(SEED.subscriptionId)!;
    const props = events.map((e) => e.properties!);
    const all = <T>(pick: (p: NonNullable<HealthEvent['properties']>) => T) => new Set(props.map(pick));
    for (const t of EventTypeValues) expect(all((p) => p.eventType)).toContain(t);
    for (const l of EventLevelValues) expect(all((p) => p.eventLevel)).toContain(l);
    for (const s of EventStatusValues) expect(all((p) => p.status)).toContain(s);
    for (const s of ['ForeignExchangeRateChange', 'Underbilling', 'Overbilling', 'PriceChanges', 'TaxChanges', 'MeterIDChanges'] as const) {
      expect(EventSubTypeValues).toContain(s);
      expect(all((p) => p.eventSubType)).toContain(s);
    }
    expect(all((p) => p.isEventSensitive)).toEqual(new Set([true, false]));
    expect(all((p) => p.isHIR)).toEqual(new Set([true, false]));
    expect(Math.max(...props.map((p) => p.impact?.[0]?.impactedRegions?.length ?? 0))).toBeGreaterThan(1);
    const window = props.filter((p) => Date.parse(p.lastUpdateTime!) > NOW - 3 * 24 * 3_600_000);
    expect(window.length).toBeGreaterThan(2 * SEED.pageSize);
  });

  it("names the vendor in ids and links, and puts the tenant's own events on the tenant", () => {
    const tenant = seedTenantEvents(NOW, 'Contoso');
    expect(tenant).toHaveLength(SEED.tenantEvents);
    expect(tenant[0]!.id).toMatch(/^\/providers\/Contoso\.ResourceHealth\/events\/LY\d+-/);
    expect(tenant[0]!.properties!.links![0]!.extensionName).toBe('Contoso_Azure_Health');
    for (const r of tenant.flatMap((e) => e.properties!.impact!.flatMap((i) => i.impactedRegions!))) {
      expect(r.impactedSubscriptions).toEqual([]);
      expect(r.impactedTenants).toEqual([SEED.tenantId]);
    }
  });
});
