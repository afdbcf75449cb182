/**
 * End to end: the built CLI against the emulator's health service over real
 * HTTP — the published example's table on a real terminal, and the service's
 * own refusals. The command's behaviour (JSON, NDJSON, rows, the detail view,
 * filters and quoting, --since, the default window, paging, errors as exit
 * codes) is tested on its run functions in test/unit/cli/health/events.test.ts.
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

  it('renders a table on a TTY', async () => {
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
});

describe('the service’s refusals', () => {
  it('a tampered skip token is refused with an ErrorResponse', async () => {
    const url = `${world.url}/subscriptions/${info.subscriptionId}/providers/Microsoft.ResourceHealth/events?api-version=2025-05-01&$skipToken=garbage`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${info.token}` } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'InvalidSkipToken', message: expect.stringContaining('$skipToken') });
  });
});

describe('errors', () => {
  const eventsUrl = (sub: string, q: string) => `${world.url}/subscriptions/${sub}/providers/Microsoft.ResourceHealth/events${q}`;

  it('missing or unknown api-version → 400 ErrorResponse (flat, all strings)', async () => {
    const res = await fetch(eventsUrl(info.subscriptionId, ''), { headers: { authorization: `Bearer ${info.token}` } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ code: 'MissingApiVersionParameter', message: 'The api-version query parameter (?api-version=) is required for all requests.' });
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

  it('no token → 401 with the challenge', async () => {
    const res = await fetch(eventsUrl(info.subscriptionId, '?api-version=2025-05-01'));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer authorization_uri=".*\/common\/oauth2\/authorize"/);
    expect(await res.json()).toEqual({ code: 'AuthenticationFailed', message: "Authentication failed. The 'Authorization' header is missing." });
  });
});
