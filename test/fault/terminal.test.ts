/**
 * What reaches a terminal from a hostile server, read on a real
 * pseudo-terminal: `--jq` and `--template` results, pretty JSON, the echoed
 * message, tables, `health event`, `mailbox get` and error lines show ESC,
 * BEL, C1 and bidirectional controls in caret notation (terminal-text.ts);
 * piped, JSON keeps its exact bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnPty } from '../e2e/pty.js';
import { hostileWorld, type HostileWorld } from './hostile.js';
import { healthEvent, MESSAGE_ID, mailboxMetadata, serveAnswers, TRACKING_ID } from './wire-samples.js';

const NASTY = 'Mona \u001b]0;PWNED\u0007\u001b[2J\u009b31m\u202eend';
/** Any control a terminal would act on (the pty turns \n into \r\n; colour is off). */
const ACTIVE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e]/;

let w: HostileWorld;
beforeAll(async () => {
  w = await hostileWorld();
  w.server.handle((req, res) => {
    const status = req.url?.includes('/fail') ? 500 : 200;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ login: 'mona', name: NASTY, message: NASTY }));
  });
});
afterAll(async () => {
  await w.close();
});

const onPty = (args: string[]) =>
  runOnPty({
    args,
    env: { LANYARD_CONFIG_DIR: w.configDir, LANYARD_PAGER: '', NO_COLOR: '1', LANYARD_TOKEN: 'pty-token-0001', LANYARD_API_KEY: 'pty-key-0001' },
    send: null,
  });

describe('hostile text on a terminal', () => {
  it.each([
    ['api --jq', ['api', '/user', '--jq', '.name']],
    ['api --template', ['api', '/user', '--template', '{{ name }}']],
    ['echo send', ['echo', 'send', 'hi']],
  ])('%s: controls shown in caret notation, none reaches the terminal', async (_name, args) => {
    const r = await onPty(args);
    expect(r.output).not.toMatch(ACTIVE);
    expect(r.output).toContain('^[]0;PWNED^G');
    expect(r.output).not.toContain('PWNED\u0007');
  });

  it('pretty JSON on a terminal: C0 escaped by JSON, C1 and bidirectional controls in caret notation', async () => {
    const r = await onPty(['api', '/user']);
    expect(r.output).not.toMatch(ACTIVE);
    expect(r.output).toContain('"name": "Mona \\u001b]0;PWNED\\u0007\\u001b[2J^[[31m<U+202E>end"');
  });

  it('an error line on stderr shows the controls in caret notation (one rule with stdout, terminal-text.ts)', async () => {
    const r = await onPty(['api', '/fail']);
    expect(r.output).toContain('HTTP 500: Mona ^[]0;PWNED^G^[[2J^[[31m<U+202E>end');
    expect(r.output).not.toMatch(ACTIVE);
  });

  it('an error line piped to a file or CI log: caret notation too, never the raw controls', async () => {
    const r = await w.run(['api', '/fail'], { env: { LANYARD_TOKEN: 'pty-token-0001' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Mona ^[]0;PWNED^G^[[2J^[[31m<U+202E>end');
    expect(r.stderr).not.toMatch(ACTIVE);
  });

  it('piped, the JSON keeps its exact bytes', async () => {
    const r = await w.run(['api', '/user'], { env: { LANYARD_TOKEN: 'pty-token-0001' } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).name).toBe(NASTY);
    expect(r.stdout).toContain('\u009b31m');
  });
});

describe('hostile service data on a terminal: tables and detail views', () => {
  let h: HostileWorld;
  beforeAll(async () => {
    h = await hostileWorld();
    const ev = healthEvent() as { properties: Record<string, unknown> };
    Object.assign(ev.properties, { title: NASTY, status: NASTY, eventTags: [NASTY], summary: NASTY, lastUpdateTime: NASTY });
    const region = (ev.properties.impact as Array<{ impactedRegions: Array<Record<string, unknown>> }>)[0]!.impactedRegions[0]!;
    Object.assign(region, { status: NASTY, lastUpdateTime: NASTY, updates: [{ summary: NASTY, updateDateTime: NASTY, eventTags: [NASTY] }] });
    (ev.properties.links as Array<Record<string, unknown>>)[0]!.type = NASTY;
    const meta = {
      ...mailboxMetadata(),
      subject: NASTY,
      from: [{ address: 'eve@example.com', name: NASTY }],
      textBody: `${NASTY}\nline two`,
      htmlBody: undefined,
    };
    h.server.handle(serveAnswers({ health: { value: [ev] }, mailboxGet: meta, mailboxList: { [MESSAGE_ID]: meta } }));
  });
  afterAll(async () => h.close());

  it.each([
    ['health events (table)', ['health', 'events']],
    ['health event', ['health', 'event', TRACKING_ID]],
    ['mailbox list --metadata (table)', ['mailbox', 'list', '--metadata']],
    ['mailbox get', ['mailbox', 'get', MESSAGE_ID]],
  ])('%s: no raw ESC, BEL or C1 reaches the terminal; the controls are shown', async (_name, args) => {
    const r = await runOnPty({
      args,
      env: { LANYARD_CONFIG_DIR: h.configDir, LANYARD_PAGER: '', NO_COLOR: '1', LANYARD_HEALTH_TOKEN: 'pty-health-token-0001', COLUMNS: '400' },
      send: null,
      cols: 400,
    });
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).not.toMatch(ACTIVE);
    expect(r.output).toContain('^[]0;PWNED^G');
  });
});
