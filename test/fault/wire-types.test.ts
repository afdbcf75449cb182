/**
 * Well-formed answers with one field of the wrong type, served to the built
 * CLI: each is refused at the edge (core/wire) with exit 1 and one line
 * naming the service, the field and what was expected, never "unexpected
 * error" or a stack trace. The first eleven are the crashes of issue 29
 * (renderers that called string methods on numbers, or read fields of null).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnPty } from '../e2e/pty.js';
import { expectOrderly, hostileWorld, type HostileWorld } from './hostile.js';
import {
  type Answers,
  healthEvent,
  healthPage,
  initializeResult,
  MESSAGE_ID,
  mailboxList,
  mailboxMetadata,
  serveAnswers,
  TRACKING_ID,
  withField,
} from './wire-samples.js';

let w: HostileWorld;
beforeAll(async () => {
  w = await hostileWorld();
});
afterAll(async () => w.close());

const ENV = {
  LANYARD_HEALTH_TOKEN: 'fault-health-token-0001',
  LANYARD_TOKEN: 'fault-hosting-token-0001',
  LANYARD_API_KEY: 'fault-echo-key-0001',
  LANYARD_PAGER: '',
};

const event = (path: Array<string | number>, value: unknown) => ({ health: { value: [withField(healthEvent(), path, value)] } });
const message = (path: Array<string | number>, value: unknown) => ({ mailboxGet: withField(mailboxMetadata(), path, value) });

/** [case, answers, argv, the service and field the error line must name]. */
const CRASHES: Array<[string, Answers, string[], RegExp]> = [
  [
    'health events, title: 7',
    event(['properties', 'title'], 7),
    ['health', 'events'],
    /^health: .*value\[0\]\.properties\.title should be string, got number$/m,
  ],
  ['health events, value: [null]', { health: { value: [null] } }, ['health', 'events'], /^health: .*value\[0\] should be an object, got null$/m],
  ['health event, name: 5', event(['name'], 5), ['health', 'event', TRACKING_ID], /^health: .*value\[0\]\.name should be string, got number$/m],
  [
    'health event, impact: [null]',
    event(['properties', 'impact'], [null]),
    ['health', 'event', TRACKING_ID],
    /^health: .*properties\.impact\[0\] should be an object/m,
  ],
  [
    'health event, links: [null]',
    event(['properties', 'links'], [null]),
    ['health', 'event', TRACKING_ID],
    /^health: .*properties\.links\[0\] should be an object/m,
  ],
  [
    'health event, eventTags: "x"',
    event(['properties', 'eventTags'], 'x'),
    ['health', 'event', TRACKING_ID],
    /^health: .*properties\.eventTags should be an array, got the string "x"$/m,
  ],
  ['mailbox get, subject: 5', message(['subject'], 5), ['mailbox', 'get', MESSAGE_ID], /^mailbox: .*subject should be string, got number$/m],
  ['mailbox get, from: "eve"', message(['from'], 'eve'), ['mailbox', 'get', MESSAGE_ID], /^mailbox: .*from should be an array, got the string "eve"$/m],
  ['mailbox get, labels: "abc"', message(['labels'], 'abc'), ['mailbox', 'get', MESSAGE_ID], /^mailbox: .*labels should be an array/m],
  ['mailbox get, textBody: {}', message(['textBody'], {}), ['mailbox', 'get', MESSAGE_ID], /^mailbox: .*textBody should be string, got an object$/m],
  [
    'mailbox get, parts: {"1": null}',
    message(['parts'], { '1': null }),
    ['mailbox', 'get', MESSAGE_ID],
    /^mailbox: .*parts\["1"\] should be an object, got null$/m,
  ],
  [
    'protocol request, instructions: 5',
    { initialize: withField(initializeResult(), ['instructions'], 5) },
    ['protocol', 'request'],
    /^protocol: .*result\.instructions should be string, got number$/m,
  ],
];

describe('one field of the wrong type: exit 1, one line naming the field', () => {
  it.each(CRASHES)('%s', async (_name, answers, argv, line) => {
    w.server.handle(serveAnswers(answers));
    const r = await w.run(argv, { env: ENV });
    expect(expectOrderly(r, [1]), r.stderr).toBeUndefined();
    expect(r.stderr).toMatch(line);
  });

  it('mailbox list --metadata on a terminal (the table), subject: 5', async () => {
    w.server.handle(serveAnswers({ mailboxList: { [MESSAGE_ID]: withField(mailboxMetadata(), ['subject'], 5) } }));
    const r = await runOnPty({ args: ['mailbox', 'list', '--metadata'], env: { LANYARD_CONFIG_DIR: w.configDir, NO_COLOR: '1', ...ENV }, send: null });
    expect(r.exitCode, r.output).toBe(1);
    expect(r.output).toMatch(/mailbox: .*\["0f9e8d7c-6b5a-1938-8271-605f4e3d2c1b"\]\.subject should be string, got number/);
    expect(r.output).not.toMatch(/unexpected error|^\s+at .+[(:]\d+/m);
  });

  it('well-formed answers still pass, with the fields Lanyard does not know kept (JSON output)', async () => {
    const page = healthPage();
    (page.value as Array<Record<string, unknown>>)[0]!.vendorExtra = { kept: [1, 'two'] };
    w.server.handle(serveAnswers({ health: page, mailboxList: mailboxList() }));
    const r = await w.run(['health', 'events', '--json'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0].vendorExtra).toEqual({ kept: [1, 'two'] });
    const m = await w.run(['mailbox', 'get', MESSAGE_ID, '--json'], { env: ENV });
    expect(m.code, m.stderr).toBe(0);
    expect(JSON.parse(m.stdout)).toMatchObject({ message: { subject: 'Quarterly report' } });
  });
});
