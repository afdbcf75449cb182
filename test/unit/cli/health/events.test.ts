/**
 * `lanyard health events|event` as run functions against the in-process
 * emulator's health service (formerly spawned end to end): the published
 * example (JSON, NDJSON, rows, the detail view), filters and quoting, --since
 * and the default window, paging, new and resolved events, and the errors the
 * command turns into exit codes. test/e2e/health-events.test.ts keeps the
 * table on a real terminal and the service's own refusals.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HealthEventsOptions } from '../../../../src/cli/commands/health/options.js';
import { runHealthEvent, runHealthEvents } from '../../../../src/cli/commands/health/run.js';
import { PUBLISHED_EXAMPLE } from '../../../../src/emulator/services/health/published-example.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

interface HealthInfo {
  subscriptionId: string;
  token: string;
  pageSize: number;
}
interface Ev {
  name: string;
  properties: {
    title: string;
    status: string;
    lastUpdateTime: string;
    impact: Array<{ impactedService: string; impactedRegions: Array<{ impactedRegion: string }> }>;
  };
}

/** The published example as shipped in the shared fixtures (the emulator's copy when not checked out beside us). */
function publishedExample(): { parameters: Record<string, string>; value: unknown[] } {
  const shared = join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'fixtures', 'health', 'Events_ListBySubscriptionId.2025-05-01.json');
  if (existsSync(shared)) {
    const fx = JSON.parse(readFileSync(shared, 'utf8')) as { parameters: Record<string, string>; responses: { 200: { body: { value: unknown[] } } } };
    return { parameters: fx.parameters, value: fx.responses[200].body.value };
  }
  return { parameters: PUBLISHED_EXAMPLE.parameters, value: [PUBLISHED_EXAMPLE.event] };
}

const on = useEmulatorCommands();
let info: HealthInfo;
beforeAll(() => {
  // The detail view and rows show times in local time: UTC, as the spawned CLI had.
  process.env.TZ = 'UTC';
  info = (on.emu.info() as { health: HealthInfo }).health;
});
const withToken = (o: RunOptions = {}): RunOptions => ({ ...o, env: { LANYARD_HEALTH_TOKEN: info.token, ...o.env } });
const events = (o: HealthEventsOptions, r: RunOptions = {}) => on.run((c) => runHealthEvents(c, o), withToken(r));
const event = (id: string, o: HealthEventsOptions, r: RunOptions = {}) => on.run((c) => runHealthEvent(c, id, o), withToken(r));
const list = async (o: HealthEventsOptions, r: RunOptions = {}) => {
  const res = await events(o, { format: 'json', ...r });
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout) as Ev[];
};
const debug: RunOptions = { globals: { debug: true } };
const gets = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('> GET '));
const hasService = (e: Ev, s: string) => e.properties.impact.some((i) => i.impactedService === s);
const hasRegion = (e: Ev, r: string) => e.properties.impact.some((i) => i.impactedRegions.some((x) => x.impactedRegion === r));

describe('the published example', () => {
  const fx = publishedExample();
  const query = { subscription: fx.parameters.subscriptionId!, filter: fx.parameters.$filter!, since: fx.parameters.queryStartTime! };

  it('--json prints exactly the published items, with the service field names; the same from --service/--region', async () => {
    const r = await events(query, { format: 'json' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fx.value);
    expect(await list({ subscription: 'subscriptionId', service: ['Virtual Machines'], region: ['West US'], since: '2025-05-12' })).toEqual(fx.value);
  });

  it('--ndjson prints one event per line; rows are tab-separated off a terminal', async () => {
    const r = await events(query, { format: 'ndjson' });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(fx.value);
    const plain = await events(query);
    expect(plain.code).toBe(0);
    // Into a pipe: raw values (the service's ISO instants), not the human short form.
    expect(plain.stdout).toMatch(
      /^ACTIVE: Virtual machines in West US\tActive\tWarning\tServiceIssue\t2025-05-12T14:45[\d:.]*Z\tVirtual Machines\tWest US\t2025-05-13T15:43[\d:.]*Z\n$/,
    );
  });
  it('health event renders the full detail, and --json the raw event', async () => {
    const r = await event('BC_1-FXZ', { subscription: 'subscriptionId', since: '5/12/2025' });
    expect(r.code).toBe(0);
    for (const piece of [
      'ACTIVE: Virtual machines in West US',
      'Tracking id:      BC_1-FXZ',
      'Status:           Active',
      'Impact start:     2025-05-12 14:45',
      'Mitigated:        2025-05-14 15:43',
      'Virtual Machines',
      'West US — Active, updated 2025-05-13 15:43',
      '2025-05-13 10:32 [False Positive, Preliminary PIR]  Update 2 - An outage alert',
      'Recommended actions title',
      '  • action 1',
      '  • action 2',
      'Request RCA [Hyperlink] Microsoft_Azure_Health/RequestRCABlade (rcaRequested=False, trackingId=BC_1-FXZ)',
      'Sign up for updates [Button]',
      'Q: This is a question',
      'A: This is an answer',
    ])
      expect(r.stdout).toContain(piece);
    const j = await event('BC_1-FXZ', { subscription: 'subscriptionId', since: '5/12/2025' }, { format: 'json' });
    expect(JSON.parse(j.stdout)).toEqual(fx.value[0]);
    const missing = await event('BC_1-FXZ', { subscription: 'subscriptionId' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no event with tracking id BC_1-FXZ .* in the last 3 days\n.*--since/);
  });
});

describe('filters', () => {
  it('--service with a single quote: doubled, URL-encoded, and matched by the service', async () => {
    const r = await events({ service: ["Customer's Lockbox"], all: true }, { format: 'json', ...debug });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('$filter=service%20eq%20%27Customer%27%27s%20Lockbox%27');
    const evs = JSON.parse(r.stdout) as Ev[];
    expect(evs.length).toBeGreaterThan(0);
    for (const e of evs) expect(hasService(e, "Customer's Lockbox")).toBe(true);
  });

  it('--service and --region are OR-ed, and match exactly what a client-side filter of the full list gives', async () => {
    const everything = await list({ all: true });
    const want = everything.filter((e) => hasService(e, 'Storage') || hasService(e, 'Key Vault') || hasRegion(e, 'West US')).map((e) => e.name);
    expect((await list({ service: ['Storage', 'Key Vault'], region: ['West US'], all: true })).map((e) => e.name)).toEqual(want);
    expect(want.length).toBeGreaterThan(5);
    expect(want.length).toBeLessThan(everything.length);
    // The same expression given raw.
    const raw = await list({ filter: "service eq 'Storage' or service eq 'Key Vault' or region eq 'West US'", all: true });
    expect(raw.map((e) => e.name)).toEqual(want);
  });

  it('--filter with --service is a usage error before any request', async () => {
    const r = await events({ filter: "region eq 'X'", service: ['Storage'] }, debug);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^--filter cannot be combined with --service\/--region/m);
    expect(r.stderr).not.toContain('> GET');
  });

  it('a filter outside the grammar is a 400 ErrorResponse printed as code: message', async () => {
    for (const [filter, why] of [
      ["status eq 'Active'", "unsupported property 'status'"],
      ["service eq 'A' and region eq 'B'", "'and' is not supported"],
      ["service ne 'A'", "unsupported operator 'ne'"],
      ["service eq 'unterminated", 'unterminated string literal'],
      ['service eq Storage', 'expected a quoted string value'],
    ] as const) {
      const r = await events({ filter });
      expect(r.code, filter).toBe(1);
      expect(r.stderr, filter).toContain('InvalidFilterInQueryString: Invalid $filter');
      expect(r.stderr, filter).toContain(why);
      expect(r.stderr, filter).toMatch(/\nSupported: <property> eq '<value>' terms joined by 'or'/);
    }
  });
});

describe('--since and the default window', () => {
  const sent = (stderr: string) => /queryStartTime=([^&\s]+)/.exec(stderr)?.[1];
  const mdy = (d: Date) => `${d.getUTCMonth() + 1}%2F${d.getUTCDate()}%2F${d.getUTCFullYear()}`;
  const since = async (s: string) => sent((await events({ since: s }, { format: 'json', ...debug })).stderr);

  it('sends queryStartTime as M/D/YYYY for each accepted form', async () => {
    expect(await since('2025-05-02')).toBe('5%2F2%2F2025');
    expect(await since('05/02/2025')).toBe('5%2F2%2F2025');
    const now = on.emu.now();
    expect([mdy(new Date(now - 3 * 86_400_000)), mdy(new Date(on.emu.now() - 3 * 86_400_000))]).toContain(await since('3d'));
    expect([mdy(new Date(now - 12 * 3_600_000)), mdy(new Date(now - 13 * 3_600_000))]).toContain(await since('12h'));
    const bad = await events({ since: '2025-13-01' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since: "2025-13-01" is not a valid calendar date/);
  });

  it('without --since only events updated in the last three days (by the emulator clock) come back', async () => {
    const now = on.emu.now();
    const wide = await list({ since: '30d', all: true });
    const def = await events({ all: true }, { format: 'json', ...debug });
    expect(def.stderr).not.toContain('queryStartTime');
    const names = (JSON.parse(def.stdout) as Ev[]).map((e) => e.name);
    const expected = wide.filter((e) => Date.parse(e.properties.lastUpdateTime) >= now - 3 * 86_400_000).map((e) => e.name);
    expect(names).toEqual(expected);
    expect(names.length).toBeLessThan(wide.length);
    // A day later, the window has moved.
    on.emu.advance('1d');
    const later = (await list({ all: true })).map((e) => e.name);
    const expectedLater = wide.filter((e) => Date.parse(e.properties.lastUpdateTime) >= now + 86_400_000 - 3 * 86_400_000).map((e) => e.name);
    expect(later).toEqual(expectedLater);
    expect(later.length).toBeLessThan(names.length);
  });

  it('an explicit date reaches older events, including the published example', async () => {
    const evs = await list({ since: '2025-05-01', all: true });
    expect(evs.map((e) => e.name)).toContain('BC_1-FXZ');
    for (const e of evs) expect(Date.parse(e.properties.lastUpdateTime)).toBeGreaterThanOrEqual(Date.UTC(2025, 4, 1));
  });
});

describe('paging', () => {
  it('--all follows every nextLink: no duplicate, no gap, same order as one big page', async () => {
    const r = await events({ all: true, since: '30d' }, { format: 'json', ...debug });
    expect(r.code).toBe(0);
    const names = (JSON.parse(r.stdout) as Ev[]).map((e) => e.name);
    expect(gets(r.stderr).length).toBe(Math.ceil(names.length / info.pageSize));
    expect(gets(r.stderr).length).toBeGreaterThanOrEqual(4);
    expect(
      gets(r.stderr)
        .slice(1)
        .every((l) => l.includes('$skipToken=')),
    ).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    await on.emu.admin('health', 'configure', { pageSize: 1000 });
    expect((await list({ since: '30d' })).map((e) => e.name)).toEqual(names);
  });

  it('follows the nextLink exactly as the server gave it', async () => {
    const url = `${on.emu.url}/subscriptions/${info.subscriptionId}/providers/Microsoft.ResourceHealth/events?api-version=2025-05-01&queryStartTime=1%2F1%2F2020`;
    const first = (await (await fetch(url, { headers: { authorization: `Bearer ${info.token}` } })).json()) as { nextLink: string };
    expect(first.nextLink).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/subscriptions\/.*\?api-version=2025-05-01&queryStartTime=1%2F1%2F2020&\$skipToken=[A-Za-z0-9_-]+$/,
    );
    const r = await events({ since: '2020-01-01', max: String(info.pageSize + 1) }, { format: 'json', ...debug });
    expect(gets(r.stderr)[1]).toBe(`> GET ${first.nextLink}`);
    expect(JSON.parse(r.stdout)).toHaveLength(info.pageSize + 1);
  });

  it('--ndjson --all streams every event; --max stops early; without either only the first page', async () => {
    const lines = (await events({ all: true }, { format: 'ndjson' })).stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(info.pageSize * 3);
    const max = await events({ max: '13' }, { format: 'ndjson', ...debug });
    expect(
      max.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Ev).name),
    ).toEqual(lines.slice(0, 13).map((l) => (JSON.parse(l) as Ev).name));
    expect(gets(max.stderr)).toHaveLength(2);
    expect(await list({})).toHaveLength(info.pageSize);
    expect((await events({ all: true, max: '3' })).code).toBe(2);
  });
});

describe('new and resolved events', () => {
  it('an added event comes first; resolving it moves it to Resolved', async () => {
    const added = (await on.emu.admin('health', 'add-event', {
      event: {
        name: 'NEW-0001',
        properties: { title: "ACTIVE: Storage latency in 'West US'", eventType: 'ServiceIssue', eventLevel: 'Critical', status: 'Active' },
      },
    })) as Ev;
    expect(added.name).toBe('NEW-0001');
    expect((await list({ max: '1' }))[0]!.name).toBe('NEW-0001');
    on.emu.advance('60s');
    await on.emu.admin('health', 'resolve', { trackingId: 'NEW-0001', summary: 'Mitigated.' });
    const ev = JSON.parse((await event('NEW-0001', {}, { format: 'json' })).stdout) as Ev & { properties: { impactMitigationTime: string; priority: number } };
    expect(ev.properties.status).toBe('Resolved');
    expect(ev.properties.title).toBe("RESOLVED: Storage latency in 'West US'");
    expect(ev.properties.impactMitigationTime).toBeTruthy();
    expect(ev.properties.priority).toBe(1);
    await expect(on.emu.admin('health', 'add-event', { event: { properties: { eventType: 'Outage' } } })).rejects.toThrow(/eventType must be one of/);
  });
});

describe('errors as exit codes', () => {
  it('an unknown api-version is one line, exit 1', async () => {
    const r = await events({ apiVersion: '2019-01-01' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "InvalidApiVersionParameter: The api-version '2019-01-01' is invalid. The supported versions are '2018-07-01-preview','2018-07-01','2022-05-01-preview','2022-10-01-preview','2022-10-01','2023-10-01-preview','2024-02-01','2025-05-01'.",
    );
  });

  it('no token → exit 4 with a sign-in hint; an invalid one → exit 4', async () => {
    const r = await on.run((c) => runHealthEvents(c, {}));
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not signed in to the health API[^\n]*\nrun `lanyard auth login --health`/);
    const invalid = await events({}, { env: { LANYARD_HEALTH_TOKEN: 'not-a-real-token' } });
    expect(invalid.code).toBe(4);
    expect(invalid.stderr).toMatch(/^InvalidAuthenticationToken: The access token is invalid\./m);
  });

  it('a user without access to the subscription → 403 and exit 4; unknown subscription → 404 exit 1', async () => {
    const guest = (await on.emu.admin('health', 'issue-token', { login: 'guest@fabrikam.example' })) as { access_token: string };
    const r = await events({}, { env: { LANYARD_HEALTH_TOKEN: guest.access_token } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^AuthorizationFailed: /m);
    const nf = await events({ subscription: 'does-not-exist' });
    expect(nf.code).toBe(1);
    expect(nf.stderr).toMatch(/^SubscriptionNotFound: The subscription 'does-not-exist' could not be found\./m);
  });

  it('an expired token from the emulator is 401 ExpiredAuthenticationToken (exit 4)', async () => {
    const t = (await on.emu.admin('health', 'issue-token', { expiresInSec: 60 })) as { access_token: string };
    const env = { LANYARD_HEALTH_TOKEN: t.access_token };
    expect((await events({ max: '1' }, { format: 'json', env })).code).toBe(0);
    on.emu.advance('120s');
    const r = await events({}, { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^ExpiredAuthenticationToken: The access token expiry UTC time/m);
  });

  it('no subscription anywhere is one line, exit 2', async () => {
    const r = await events({}, { settings: { 'health.subscriptionId': undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^no subscription: pass --subscription ID\nor run `lanyard config set health.subscriptionId/);
  });
});
