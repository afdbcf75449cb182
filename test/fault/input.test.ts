/**
 * Bad input is a usage error (exit 2, one line) found before any request:
 * the hostile server must see nothing. Path parameters stay one path segment.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectOrderly, hostileWorld, type HostileWorld } from './hostile.js';

let w: HostileWorld;
beforeAll(async () => {
  w = await hostileWorld();
});
afterAll(async () => w.close());
beforeEach(() => {
  w.server.seen.length = 0;
});

const ID = '0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b';
const env = {
  LANYARD_TOKEN: 'lyp_fault_suite_token_00000000000000',
  LANYARD_HEALTH_TOKEN: 'health-fault-token-0000',
  LANYARD_API_KEY: 'echo-fault-key-0000000',
};

const usage: Array<[string, string[]]> = [
  ['ratelimit wait --timeout ""', ['ratelimit', 'wait', '--timeout', '']],
  ['ratelimit wait --timeout 999999999999h', ['ratelimit', 'wait', '--timeout', '999999999999h']],
  ['--max-wait ""', ['--max-wait', '', 'api', '/user']],
  ['--max-wait 99999999d', ['--wait', '--max-wait', '99999999d', 'api', '/user']],
  ['ratelimit wait --resource ""', ['ratelimit', 'wait', '--resource', '']],
  ['ratelimit status --resource ""', ['ratelimit', 'status', '--resource', '']],
  ['ratelimit status --fail-under 1e99', ['ratelimit', 'status', '--fail-under', '99999999999999999999999']],
  ['api -X ""', ['api', '-X', '', '/user']],
  ['api file:///etc/passwd', ['api', 'file:///etc/passwd']],
  ['api with a newline in the path', ['api', '/user\r\nX-Injected: 1']],
  ['protocol request --method ""', ['protocol', 'request', '--method', '']],
  ['auth device --scopes with a newline', ['auth', 'device', '--no-browser', '--scopes', 'repo\nx']],
  ['health events --since 99999999d', ['health', 'events', '--since', '99999999d']],
  ['mailbox raw --output ""', ['mailbox', 'raw', ID, '--output', '']],
  ['mailbox list --user ..', ['mailbox', 'list', '--user', '..']],
  ['mailbox list --user .', ['mailbox', 'list', '--user', '.']],
  ['mailbox list --domain ..', ['mailbox', 'list', '--domain', '..']],
  ['health events --subscription ..', ['health', 'events', '--subscription', '..']],
  ['health events --subscription .', ['health', 'events', '--subscription', '.']],
  ['health event X --subscription ..', ['health', 'event', 'ABC-123', '--subscription', '..']],
];

describe('usage errors before any request', () => {
  it.each(usage)('%s: exit 2, one line, no request', async (_name, args) => {
    const r = await w.run(args, { env });
    expect(expectOrderly(r, [2]), r.stderr).toBeUndefined();
    expect(r.stderr.trim().split('\n').length, r.stderr).toBeLessThanOrEqual(2);
    expect(w.server.seen, JSON.stringify(w.server.seen)).toEqual([]);
  });
});

describe('path parameters cannot leave their segment', () => {
  it('health events --subscription %2e%2e goes to /subscriptions/%252e%252e/…, not /providers', async () => {
    const r = await w.run(['health', 'events', '--subscription', '%2e%2e'], { env });
    expect(expectOrderly(r), r.stderr).toBeUndefined();
    expect(w.server.seen.length).toBeGreaterThan(0);
    for (const s of w.server.seen) expect(s.url).toMatch(/^\/subscriptions\/%252e%252e\/providers\//);
  });

  it('health events --subscription a/b is encoded (%2F), one segment', async () => {
    const r = await w.run(['health', 'events', '--subscription', 'a/b'], { env });
    expect(expectOrderly(r), r.stderr).toBeUndefined();
    for (const s of w.server.seen) expect(s.url).toMatch(/^\/subscriptions\/a%2Fb\/providers\//);
  });
});
