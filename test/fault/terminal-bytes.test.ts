/**
 * What a server sends, on a real pseudo-terminal, where the earlier suite
 * (terminal.test.ts) does not reach: streamed bodies (`mailbox raw`,
 * `mailbox part`, `api` answering text) pass the sanitiser chunk by chunk,
 * binary is refused with a one-line hint (as curl refuses it), a server's
 * colour never reaches a colour terminal (`--jq`, `--no-color`), CRLF is a
 * line end, and Lanyard's own colour (the spinner too) follows NO_COLOR and
 * FORCE_COLOR=0. Piped, every byte stays as sent.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/harness.js';
import { runOnPty } from '../e2e/pty.js';
import { hostileWorld, type HostileWorld } from './hostile.js';
import { MESSAGE_ID, mailboxMetadata } from './wire-samples.js';

const NASTY = 'Mona \u001b]0;PWNED\u0007\u001b[2J\u009b31m\u202eend';
/** Any control a terminal would act on, but CR and LF (the pty turns \n into \r\n). */
const ACTIVE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e]/;
/** A body with every hazard: escapes, CRLF line ends, a bare CR, UTF-8 (sent split across chunks). */
const BODY = `Hello ${NASTY}\r\nprice 5 €\r\nbar\rbaz\r\n`;
const BINARY_ID = '0f9e8d7c-6b5a-1938-8271-605f4e3d2c1c';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
/** What the code host answers for `Accept: application/vnd.github.diff` (its published description), a server escape in it. */
const DIFF = 'diff --git a/README b/README\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-old\n+new \u001b[2J\n';
/** Hebrew with a bidi mark (legitimate), a server's SGR, and a bare CR in a body. */
const LIST = [{ number: 2, title: 'שלום\u200f \u001b[8mworld', body: 'a\rb' }];
const ISSUE = { number: 1, title: '\u001b[8mHIDDEN\u001b[28m \u001b[31mred', body: 'Steps:\r\n1. run it\r\n2. see' };

/** BODY in three writes: one ending in the CR of a CRLF, one ending in the middle of "€". */
function sendSplit(res: ServerResponse, type: string): void {
  const bytes = Buffer.from(BODY);
  const cr = bytes.indexOf('\r\n') + 1;
  const euro = bytes.indexOf('€') + 1;
  res.writeHead(200, { 'content-type': type });
  res.write(bytes.subarray(0, cr));
  setTimeout(() => {
    res.write(bytes.subarray(cr, euro));
    setTimeout(() => res.end(bytes.subarray(euro)), 30);
  }, 30);
}

let w: HostileWorld;
beforeAll(async () => {
  w = await hostileWorld();
  w.server.handle((req, res) => {
    const url = req.url ?? '';
    const binary = (type: string, body: Buffer) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    if (url.endsWith(`/message/${MESSAGE_ID}/raw`)) return sendSplit(res, 'message/rfc822');
    if (url.endsWith(`/message/${MESSAGE_ID}/1`) || url.startsWith('/api/v3/text')) return sendSplit(res, 'text/plain; charset=utf-8');
    if (url.endsWith(`/message/${MESSAGE_ID}/2`) || url.startsWith('/api/v3/png')) return binary('image/png', PNG);
    if (url.endsWith(`/message/${BINARY_ID}/raw`) || url.startsWith('/api/v3/nul')) return binary('text/plain', Buffer.from('Subject: x\r\n\r\nab\u0000cd'));
    if (new RegExp(`/message/${BINARY_ID}(\\?|$)`).test(url))
      return binary(
        'application/json',
        Buffer.from(JSON.stringify({ ...mailboxMetadata(), textBody: 'a\u0007b\u001b[2J\r\nline two\rbare\u0000', htmlBody: undefined })),
      );
    if (url.startsWith('/api/v3/diff')) return binary('application/vnd.github.diff; charset=utf-8', Buffer.from(DIFF));
    if (url.startsWith('/api/v3/octocat')) return binary('application/octocat-stream', Buffer.from('  MMM.           .MMM\n  (octocat)\n'));
    if (url.startsWith('/api/v3/list')) return binary('application/json', Buffer.from(JSON.stringify(LIST)));
    if (url.startsWith('/api/v3/user')) return binary('application/json', Buffer.from('{"login":"mona"}'));
    if (url.startsWith('/api/v3/issue')) return binary('application/json', Buffer.from(JSON.stringify(ISSUE)));
    if (url.startsWith('/api/v3/rate_limit')) {
      const reset = Math.floor(Date.now() / 1000) + 600;
      return binary('application/json', Buffer.from(JSON.stringify({ resources: { core: { limit: 5000, used: 5000, remaining: 0, reset } } })));
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"Not Found"}');
  });
});
afterAll(async () => w.close());

/** A colour terminal: the harness sets NO_COLOR unless told not to. */
const COLOUR = { NO_COLOR: undefined, FORCE_COLOR: '1' };
const onPty = (args: string[], env: Record<string, string | undefined> = { NO_COLOR: '1' }, o: { waitFor?: string } = {}) =>
  runOnPty({
    args,
    env: { LANYARD_CONFIG_DIR: w.configDir, LANYARD_PAGER: '', LANYARD_TOKEN: 'pty-token-0001', ...env },
    send: o.waitFor ? '03' : null,
    waitFor: o.waitFor,
  });

describe('a streamed body on a terminal', () => {
  it.each([
    ['mailbox raw', ['mailbox', 'raw', MESSAGE_ID]],
    ['mailbox part (text)', ['mailbox', 'part', MESSAGE_ID, '1']],
    ['api (text/plain)', ['api', '/text']],
  ])('%s: controls in caret notation, CRLF a line end, a bare CR shown, UTF-8 whole across chunks', async (_name, args) => {
    const r = await onPty(args);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).not.toMatch(ACTIVE);
    expect(r.output).toContain('Hello Mona ^[]0;PWNED^G^[[2J^[[31m<U+202E>end\r\r\nprice 5 €\r\r\nbar^Mbaz\r\r\n');
    expect(r.output).not.toContain('\ufffd');
  });

  it.each([
    ['mailbox part (image/png)', ['mailbox', 'part', MESSAGE_ID, '2'], 'part 2 (image/png) is binary', '--output'],
    ['mailbox raw (a NUL byte)', ['mailbox', 'raw', BINARY_ID], 'is binary', '--output'],
    ['api (image/png)', ['api', '/png'], 'the response (image/png) is binary', 'redirect stdout'],
    ['api (text/plain with a NUL byte)', ['api', '/nul'], 'is binary', 'redirect stdout'],
  ])('%s: refused with a one-line hint, exit 2, nothing binary on the terminal', async (_name, args, message, hint) => {
    const r = await onPty(args);
    expect(r.exitCode, r.output).toBe(2);
    expect(r.output).toContain(message);
    expect(r.output).toContain('binary output can mess up your terminal');
    expect(r.output).toContain(hint);
    expect(r.output).not.toContain('\u0000');
    expect(r.output).not.toContain('PNG\r');
    expect(r.output).not.toMatch(/^\s+at /m);
  });

  it('api -X HEAD of a binary type: nothing to refuse (the body is empty), exit 0', async () => {
    const r = await onPty(['api', '-X', 'HEAD', '/png']);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).not.toContain('binary');
  });

  it.each([
    ['mailbox raw', ['mailbox', 'raw', MESSAGE_ID], Buffer.from(BODY)],
    ['api (text/plain)', ['api', '/text'], Buffer.from(BODY)],
    ['api (image/png)', ['api', '/png'], PNG],
    ['mailbox part (image/png)', ['mailbox', 'part', MESSAGE_ID, '2'], PNG],
  ])('%s piped: the exact bytes', async (_name, args, bytes) => {
    const chunks: Buffer[] = [];
    const env = { LANYARD_CONFIG_DIR: w.configDir, LANYARD_TOKEN: 'pty-token-0001' };
    const r = await runCli(args, { env, onSpawn: (c) => c.stdout?.on('data', (b: Buffer) => chunks.push(b)) });
    expect(r.code, r.stderr).toBe(0);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });
});

describe("a server's escape sequences never reach a colour terminal; Lanyard's colour follows the settings", () => {
  it.each([
    ['colour on', [], COLOUR],
    ['--no-color', ['--no-color'], COLOUR],
  ])('api --jq .title with %s: the SGR of the title shown in caret notation', async (_name, flags, env) => {
    const r = await onPty([...flags, 'api', '/issue', '--jq', '.title'], env);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('^[[8mHIDDEN^[[28m ^[[31mred');
    expect(r.output).not.toContain('\u001b[8m');
  });

  it("api --jq on a colour terminal: jq's own colour stays, the server's is shown (JSON escapes it)", async () => {
    const r = await onPty(['api', '/issue', '--jq', '{title}'], COLOUR);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('\u001b[0;32m"\\u001b[8mHIDDEN\\u001b[28m \\u001b[31mred"\u001b[0m');
    expect(r.output).not.toContain('\u001b[8m');
  });

  it('a CRLF body (written in a browser) reads as lines, without ^M', async () => {
    const r = await onPty(['api', '/issue', '--jq', '.body']);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('Steps:\r\r\n1. run it\r\r\n2. see');
    expect(r.output).not.toContain('^M');
  });

  it.each([
    ['NO_COLOR=1', { NO_COLOR: '1' }],
    ['FORCE_COLOR=0', { NO_COLOR: undefined, FORCE_COLOR: '0' }],
  ])('the spinner with %s: drawn without colour', async (_name, env) => {
    const r = await onPty(['ratelimit', 'wait'], env, { waitFor: 'waiting for core' });
    expect(r.output).toContain('waiting for core');
    expect(r.output).not.toMatch(/\u001b\[3\dm/);
    expect(r.exitCode).toBe(130);
  });

  it('the spinner on a colour terminal is coloured (the check above can fail)', async () => {
    const r = await onPty(['ratelimit', 'wait'], { NO_COLOR: undefined }, { waitFor: 'waiting for core' });
    expect(r.output).toMatch(/\u001b\[36m/);
  });

  it.each([
    ['FORCE_COLOR=0', { NO_COLOR: undefined, FORCE_COLOR: '0' }, false],
    ['FORCE_COLOR=false', { NO_COLOR: undefined, FORCE_COLOR: 'false' }, false],
    ['no setting', { NO_COLOR: undefined }, true],
  ])("Lanyard's own colour (a table's bold header, a spent budget in red) with %s on a terminal", async (_name, env, coloured) => {
    const r = await onPty(['ratelimit', 'status'], env);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('RESOURCE');
    expect(/\u001b\[(1|31)m/.test(r.output)).toBe(coloured);
  });
});

describe('revdiff 16: text types by their bytes; --jq/--template on the exact data', () => {
  it.each([
    ['application/vnd.github.diff', ['api', '/diff'], '+new ^[[2J\r\n'],
    ['application/octocat-stream', ['api', '/octocat'], '(octocat)\r\n'],
  ])('api answering %s on a terminal: printed through the sanitiser, exit 0 (a NUL would make it binary, not its type)', async (_type, args, shown) => {
    const r = await onPty(args);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain(shown);
    expect(r.output).not.toContain('binary');
    expect(r.output).not.toMatch(ACTIVE);
  });

  it('api answering image/png on a terminal is still refused by its type (exit 2)', async () => {
    const r = await onPty(['api', '/png']);
    expect(r.exitCode, r.output).toBe(2);
    expect(r.output).toContain('the response (image/png) is binary');
  });

  it.each([
    ['--jq', '[(.[0].title|length), (.[0].body|length), ([.[] | select(.body == "a\\rb")] | length)] | @csv'],
    ['--template', '{{ data[0].title | size }},{{ data[0].body | size }},{{ data | where: "number", 2 | size }}'],
  ])('%s computes the same on a colour terminal, with NO_COLOR and in a pipe', async (flag, program) => {
    const args = ['api', '/list', flag, program];
    const piped = await w.run(args, { env: { LANYARD_TOKEN: 'pty-token-0001' } });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.trim()).toBe('15,3,1');
    for (const e of [COLOUR, { NO_COLOR: '1' }]) {
      const r = await onPty(args, e);
      expect(r.exitCode, r.output).toBe(0);
      expect(r.output.trim(), JSON.stringify(e)).toBe('15,3,1');
    }
  });

  it.each([
    ['--jq', '.[0].title', 'שלום<U+200F> ^[[8mworld\r\n'],
    ['--jq', '.[0]', '\u001b[0;32m"שלום<U+200F> \\u001b[8mworld"\u001b[0m'],
    ['--template', '{{ data[0].title | color: "red" }}', '\u001b[31mשלום<U+200F> ^[[8mworld\u001b[39m'],
  ])("%s %s on a colour terminal: the exact data shaped, the server's escape shown, the colour added kept", async (flag, program, coloured) => {
    const r = await onPty(['api', '/list', flag, program], COLOUR);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain(coloured);
    expect(r.output).not.toContain('\u001b[8m');
    expect(r.output).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f-\u009f\u200f]/);
  });
});

describe('the rest of the review (revterm 9)', () => {
  it('mailbox get on a terminal shows the controls of a body in caret notation (none dropped); CRLF stays a line end', async () => {
    const r = await onPty(['mailbox', 'get', BINARY_ID]);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('a^Gb^[[2J\r\r\nline two^Mbare^@');
    expect(r.output).not.toMatch(ACTIVE);
  });

  it('mailbox get piped: the body as the server sent it', async () => {
    const r = await w.run(['mailbox', 'get', BINARY_ID]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('a\u0007b\u001b[2J\r\nline two\rbare\u0000');
  });

  it('api --jq input: one line saying there are no more inputs (not "break"), exit 1', async () => {
    const r = await w.run(['api', '/user', '--jq', 'input'], { env: { LANYARD_TOKEN: 'pty-token-0001' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^--jq: No more inputs/);
    expect(r.stderr).not.toContain('break');
  });

  it.each(['/dev/null', '/etc/hostname'])('LANYARD_CONFIG_DIR=%s: "not a directory", exit 2, and no advice to chmod it', async (dir) => {
    const r = await runCli(['config', 'list'], { env: { LANYARD_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the config directory ${dir} is not a directory`);
    expect(r.stderr).not.toContain('chmod');
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
  });
});
