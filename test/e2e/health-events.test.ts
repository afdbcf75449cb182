/**
 * End to end: the built CLI against the emulator's health service over real
 * HTTP — the published example (table and JSON), filters and quoting, --since,
 * the default window, paging, and errors.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, startWorld, type World } from './harness.js';
import { PUBLISHED_EXAMPLE } from '../../src/emulator/services/health/published-example.js';

interface HealthInfo {
  subscriptionId: string;
  exampleSubscriptionId: string;
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
  const shared = join(ROOT, '..', 'shared', 'fixtures', 'health', 'Events_ListBySubscriptionId.2025-05-01.json');
  if (existsSync(shared)) {
    const fx = JSON.parse(readFileSync(shared, 'utf8')) as { parameters: Record<string, string>; responses: { 200: { body: { value: unknown[] } } } };
    return { parameters: fx.parameters, value: fx.responses[200].body.value };
  }
  return { parameters: PUBLISHED_EXAMPLE.parameters, value: [PUBLISHED_EXAMPLE.event] };
}

let world: World;
let info: HealthInfo;
let env: Record<string, string>;
const run = (args: string[], extra: Record<string, string | undefined> = {}) => world.run(['--profile', 'emulator', ...args], { env: { ...env, ...extra } });
const json = <T>(text: string) => JSON.parse(text) as T;

beforeAll(async () => {
  world = await startWorld();
  const all = (await (await fetch(`${world.url}/_emulator/info`)).json()) as { health: HealthInfo };
  info = all.health;
  env = { LANYARD_HEALTH_TOKEN: info.token, TZ: 'UTC' };
});
afterAll(async () => world?.stop());
beforeEach(async () => {
  await world.admin('reset');
});

const hasService = (e: Ev, s: string) => e.properties.impact.some((i) => i.impactedService === s);
const hasRegion = (e: Ev, r: string) => e.properties.impact.some((i) => i.impactedRegions.some((x) => x.impactedRegion === r));

describe('the published example', () => {
  const fx = publishedExample();
  const args = [
    'health',
    'events',
    '--subscription',
    fx.parameters.subscriptionId!,
    '--filter',
    fx.parameters.$filter!,
    '--since',
    fx.parameters.queryStartTime!,
  ];

  it('--json prints exactly the published items, with the service field names', async () => {
    const r = await run([...args, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toEqual(fx.value);
    // The same request built from --service/--region.
    const r2 = await run([
      'health',
      'events',
      '--subscription',
      'subscriptionId',
      '--service',
      'Virtual Machines',
      '--region',
      'West US',
      '--since',
      '2025-05-12',
      '--json',
    ]);
    expect(json(r2.stdout)).toEqual(fx.value);
  });

  it('--ndjson prints one event per line', async () => {
    const r = await run([...args, '--ndjson']);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(fx.value);
  });

  it('renders a table on a TTY and tab-separated rows otherwise', async () => {
    const plain = await run(args);
    expect(plain.code).toBe(0);
    // Into a pipe: raw values (the service's ISO instants), not the human short form.
    expect(plain.stdout).toMatch(
      /^ACTIVE: Virtual machines in West US\tActive\tWarning\tServiceIssue\t2025-05-12T14:45[\d:.]*Z\tVirtual Machines\tWest US\t2025-05-13T15:43[\d:.]*Z\n$/,
    );
    // A real pseudo-terminal via script(1).
    const cmd = ['node', join(ROOT, 'bin', 'lanyard.js'), '--profile', 'emulator', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const { spawnSync } = await import('node:child_process');
    // No pager: the table itself is checked here (test/e2e/pager.test.ts pages it).
    const ttyEnv: Record<string, string | undefined> = { ...process.env, ...world.env, ...env, LANYARD_KEYCHAIN: 'off', FORCE_COLOR: '1', LANYARD_PAGER: '' };
    delete ttyEnv.NO_COLOR;
    const out = spawnSync('script', ['-qec', `stty cols 200; ${cmd}`, '/dev/null'], { env: ttyEnv, encoding: 'utf8' });
    const text = out.stdout.replace(/\r/g, '');
    const lines = text.split('\n').filter(Boolean);
    // eslint-disable-next-line no-control-regex
    const strip = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');
    expect(strip(lines[0]!)).toMatch(/^TITLE\s+STATUS\s+LEVEL\s+TYPE\s+IMPACT START\s+SERVICES\s+REGIONS\s+LAST UPDATE$/);
    expect(strip(lines[1]!)).toMatch(
      /^ACTIVE: Virtual machines in West US\s+Active\s+Warning\s+ServiceIssue\s+2025-05-12 14:45\s+Virtual Machines\s+West US\s+2025-05-13 15:43$/,
    );
    expect(lines[1]).toContain('\u001b[1m\u001b[31mActive'); // Active highlighted
  });

  it('health event renders the full detail, and --json the raw event', async () => {
    const r = await run(['health', 'event', 'BC_1-FXZ', '--subscription', 'subscriptionId', '--since', '5/12/2025']);
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
    const j = await run(['health', 'event', 'BC_1-FXZ', '--subscription', 'subscriptionId', '--since', '5/12/2025', '--json']);
    expect(json(j.stdout)).toEqual(fx.value[0]);
    const missing = await run(['health', 'event', 'BC_1-FXZ', '--subscription', 'subscriptionId']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no event with tracking id BC_1-FXZ .* in the last 3 days\n.*--since/);
  });
});

describe('filters', () => {
  it('--service with a single quote: doubled, URL-encoded, and matched by the service', async () => {
    const r = await run(['health', 'events', '--service', "Customer's Lockbox", '--all', '--json', '--debug']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('$filter=service%20eq%20%27Customer%27%27s%20Lockbox%27');
    const evs = json<Ev[]>(r.stdout);
    expect(evs.length).toBeGreaterThan(0);
    for (const e of evs) expect(hasService(e, "Customer's Lockbox")).toBe(true);
  });

  it('--service and --region are OR-ed, and match exactly what a client-side filter of the full list gives', async () => {
    const everything = json<Ev[]>((await run(['health', 'events', '--all', '--json'])).stdout);
    const want = everything.filter((e) => hasService(e, 'Storage') || hasService(e, 'Key Vault') || hasRegion(e, 'West US')).map((e) => e.name);
    const r = await run(['health', 'events', '--service', 'Storage', '--service', 'Key Vault', '--region', 'West US', '--all', '--json']);
    expect(json<Ev[]>(r.stdout).map((e) => e.name)).toEqual(want);
    expect(want.length).toBeGreaterThan(5);
    expect(want.length).toBeLessThan(everything.length);
    // The same expression given raw.
    const raw = await run(['health', 'events', '--filter', "service eq 'Storage' or service eq 'Key Vault' or region eq 'West US'", '--all', '--json']);
    expect(json<Ev[]>(raw.stdout).map((e) => e.name)).toEqual(want);
  });

  it('--filter with --service is a usage error before any request', async () => {
    const r = await run(['health', 'events', '--filter', "region eq 'X'", '--service', 'Storage', '--debug']);
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
      const r = await run(['health', 'events', '--filter', filter]);
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

  it('sends queryStartTime as M/D/YYYY for each accepted form', async () => {
    expect(sent((await run(['health', 'events', '--since', '2025-05-02', '--debug', '--json'])).stderr)).toBe('5%2F2%2F2025');
    expect(sent((await run(['health', 'events', '--since', '05/02/2025', '--debug', '--json'])).stderr)).toBe('5%2F2%2F2025');
    const before = mdy(new Date(Date.now() - 3 * 86_400_000));
    const s = sent((await run(['health', 'events', '--since', '3d', '--debug', '--json'])).stderr);
    const after = mdy(new Date(Date.now() - 3 * 86_400_000));
    expect([before, after]).toContain(s);
    const h = sent((await run(['health', 'events', '--since', '12h', '--debug', '--json'])).stderr);
    expect([mdy(new Date(Date.now() - 12 * 3_600_000)), mdy(new Date(Date.now() - 13 * 3_600_000))]).toContain(h);
    const bad = await run(['health', 'events', '--since', '2025-13-01']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since: "2025-13-01" is not a valid calendar date/);
  });

  it('without --since only events updated in the last three days (by the emulator clock) come back', async () => {
    const now = Date.parse(((await (await fetch(`${world.url}/_emulator/info`)).json()) as { now: string }).now);
    const wide = json<Ev[]>((await run(['health', 'events', '--since', '30d', '--all', '--json'])).stdout);
    const def = await run(['health', 'events', '--all', '--json', '--debug']);
    expect(def.stderr).not.toContain('queryStartTime');
    const names = json<Ev[]>(def.stdout).map((e) => e.name);
    const expected = wide.filter((e) => Date.parse(e.properties.lastUpdateTime) >= now - 3 * 86_400_000).map((e) => e.name);
    expect(names).toEqual(expected);
    expect(names.length).toBeLessThan(wide.length);
    // A day later, the window has moved.
    await world.admin('advance', { seconds: 86_400 });
    const later = json<Ev[]>((await run(['health', 'events', '--all', '--json'])).stdout).map((e) => e.name);
    const expectedLater = wide.filter((e) => Date.parse(e.properties.lastUpdateTime) >= now + 86_400_000 - 3 * 86_400_000).map((e) => e.name);
    expect(later).toEqual(expectedLater);
    expect(later.length).toBeLessThan(names.length);
  });

  it('an explicit date reaches older events, including the published example', async () => {
    const r = await run(['health', 'events', '--since', '2025-05-01', '--all', '--json']);
    const evs = json<Ev[]>(r.stdout);
    expect(evs.map((e) => e.name)).toContain('BC_1-FXZ');
    for (const e of evs) expect(Date.parse(e.properties.lastUpdateTime)).toBeGreaterThanOrEqual(Date.UTC(2025, 4, 1));
  });
});

describe('paging', () => {
  it('--all follows every nextLink: no duplicate, no gap, same order as one big page', async () => {
    const r = await run(['health', 'events', '--all', '--json', '--since', '30d', '--debug']);
    expect(r.code).toBe(0);
    const names = json<Ev[]>(r.stdout).map((e) => e.name);
    const gets = r.stderr.split('\n').filter((l) => l.startsWith('> GET '));
    expect(gets.length).toBe(Math.ceil(names.length / info.pageSize));
    expect(gets.length).toBeGreaterThanOrEqual(4);
    expect(gets.slice(1).every((l) => l.includes('$skipToken='))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    await world.admin('health/configure', { pageSize: 1000 });
    const one = await run(['health', 'events', '--json', '--since', '30d']);
    expect(json<Ev[]>(one.stdout).map((e) => e.name)).toEqual(names);
  });

  it('follows the nextLink exactly as the server gave it', async () => {
    const url = `${world.url}/subscriptions/${info.subscriptionId}/providers/Microsoft.ResourceHealth/events?api-version=2025-05-01&queryStartTime=1%2F1%2F2020`;
    const first = (await (await fetch(url, { headers: { authorization: `Bearer ${info.token}` } })).json()) as { nextLink: string };
    expect(first.nextLink).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/subscriptions\/.*\?api-version=2025-05-01&queryStartTime=1%2F1%2F2020&\$skipToken=[A-Za-z0-9_-]+$/,
    );
    const r = await run(['health', 'events', '--since', '2020-01-01', '--max', String(info.pageSize + 1), '--json', '--debug']);
    const gets = r.stderr.split('\n').filter((l) => l.startsWith('> GET '));
    expect(gets[1]).toBe(`> GET ${first.nextLink}`);
    expect(json<Ev[]>(r.stdout)).toHaveLength(info.pageSize + 1);
  });

  it('--ndjson --all streams every event; --max stops early; without either only the first page', async () => {
    const all = await run(['health', 'events', '--all', '--ndjson']);
    const lines = all.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(info.pageSize * 3);
    const max = await run(['health', 'events', '--max', '13', '--ndjson', '--debug']);
    expect(
      max.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Ev).name),
    ).toEqual(lines.slice(0, 13).map((l) => (JSON.parse(l) as Ev).name));
    expect(max.stderr.split('\n').filter((l) => l.startsWith('> GET '))).toHaveLength(2);
    const first = await run(['health', 'events', '--json']);
    expect(json<Ev[]>(first.stdout)).toHaveLength(info.pageSize);
    const both = await run(['health', 'events', '--all', '--max', '3']);
    expect(both.code).toBe(2);
  });

  it('a tampered skip token is refused with an ErrorResponse', async () => {
    const url = `${world.url}/subscriptions/${info.subscriptionId}/providers/Microsoft.ResourceHealth/events?api-version=2025-05-01&$skipToken=garbage`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${info.token}` } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'InvalidSkipToken', message: expect.stringContaining('$skipToken') });
  });
});

describe('emulator admin: new and resolved events', () => {
  it('an added event comes first; resolving it moves it to Resolved', async () => {
    const added = (await world.admin('health/add-event', {
      event: {
        name: 'NEW-0001',
        properties: { title: "ACTIVE: Storage latency in 'West US'", eventType: 'ServiceIssue', eventLevel: 'Critical', status: 'Active' },
      },
    })) as Ev;
    expect(added.name).toBe('NEW-0001');
    const top = json<Ev[]>((await run(['health', 'events', '--max', '1', '--json'])).stdout);
    expect(top[0]!.name).toBe('NEW-0001');
    await world.admin('advance', { seconds: 60 });
    await world.admin('health/resolve', { trackingId: 'NEW-0001', summary: 'Mitigated.' });
    const ev = json<Ev & { properties: { impactMitigationTime: string; priority: number } }>((await run(['health', 'event', 'NEW-0001', '--json'])).stdout);
    expect(ev.properties.status).toBe('Resolved');
    expect(ev.properties.title).toBe("RESOLVED: Storage latency in 'West US'");
    expect(ev.properties.impactMitigationTime).toBeTruthy();
    expect(ev.properties.priority).toBe(1);
    await expect(world.admin('health/add-event', { event: { properties: { eventType: 'Outage' } } })).rejects.toThrow(/eventType must be one of/);
  });
});

describe('errors', () => {
  const eventsUrl = (sub: string, q: string) => `${world.url}/subscriptions/${sub}/providers/Microsoft.ResourceHealth/events${q}`;

  it('missing or unknown api-version → 400 ErrorResponse (flat, all strings)', async () => {
    const res = await fetch(eventsUrl(info.subscriptionId, ''), { headers: { authorization: `Bearer ${info.token}` } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ code: 'MissingApiVersionParameter', message: 'The api-version query parameter (?api-version=) is required for all requests.' });
    const r = await run(['health', 'events', '--api-version', '2019-01-01']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "InvalidApiVersionParameter: The api-version '2019-01-01' is invalid. The supported versions are '2018-07-01-preview','2018-07-01','2022-05-01-preview','2022-10-01-preview','2022-10-01','2023-10-01-preview','2024-02-01','2025-05-01'.",
    );
  });

  it('an empty subscription id and a bad queryStartTime are 400s', async () => {
    const empty = await fetch(eventsUrl('', '?api-version=2025-05-01'), { headers: { authorization: `Bearer ${info.token}` } });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { code: string }).code).toBe('InvalidSubscriptionId');
    const bad = await fetch(eventsUrl(info.subscriptionId, '?api-version=2025-05-01&queryStartTime=2025-05-12'), {
      headers: { authorization: `Bearer ${info.token}` },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('InvalidQueryStartTime');
    const encoded = await fetch(eventsUrl(info.subscriptionId, '?api-version=2025-05-01&queryStartTime=5%252F12%252F2025'), {
      headers: { authorization: `Bearer ${info.token}` },
    });
    expect(encoded.status).toBe(200);
  });

  it('no token → 401 and exit 4 with a sign-in hint', async () => {
    const res = await fetch(eventsUrl(info.subscriptionId, '?api-version=2025-05-01'));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer authorization_uri=".*\/common\/oauth2\/authorize"/);
    expect(await res.json()).toEqual({ code: 'AuthenticationFailed', message: "Authentication failed. The 'Authorization' header is missing." });
    const r = await run(['health', 'events'], { LANYARD_HEALTH_TOKEN: undefined });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not signed in to the health API[^\n]*\nrun `lanyard auth login --health`/);
    const invalid = await run(['health', 'events'], { LANYARD_HEALTH_TOKEN: 'not-a-real-token' });
    expect(invalid.code).toBe(4);
    expect(invalid.stderr).toMatch(/^InvalidAuthenticationToken: The access token is invalid\./m);
  });

  it('a user without access to the subscription → 403 and exit 4; unknown subscription → 404 exit 1', async () => {
    const guest = (await world.admin('health/issue-token', { login: 'guest@fabrikam.example' })) as { access_token: string };
    const r = await run(['health', 'events'], { LANYARD_HEALTH_TOKEN: guest.access_token });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^AuthorizationFailed: /m);
    const nf = await run(['health', 'events', '--subscription', 'does-not-exist']);
    expect(nf.code).toBe(1);
    expect(nf.stderr).toMatch(/^SubscriptionNotFound: The subscription 'does-not-exist' could not be found\./m);
  });

  it('an expired token from the emulator is 401 ExpiredAuthenticationToken (exit 4)', async () => {
    const t = (await world.admin('health/issue-token', { expiresInSec: 60 })) as { access_token: string };
    expect((await run(['health', 'events', '--max', '1', '--json'], { LANYARD_HEALTH_TOKEN: t.access_token })).code).toBe(0);
    await world.admin('advance', { seconds: 120 });
    const r = await run(['health', 'events'], { LANYARD_HEALTH_TOKEN: t.access_token });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^ExpiredAuthenticationToken: The access token expiry UTC time/m);
  });

  it('no subscription anywhere is one line, exit 2', async () => {
    await world.run(['config', 'unset', 'health.subscriptionId', '--profile', 'emulator'], { env });
    const r = await run(['health', 'events']);
    await world.run(['config', 'set', 'health.subscriptionId', info.subscriptionId, '--profile', 'emulator'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^no subscription: pass --subscription ID\nor run `lanyard config set health.subscriptionId/);
  });
});
