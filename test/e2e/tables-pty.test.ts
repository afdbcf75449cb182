/**
 * The tables a person reads most — `ratelimit status`, `mailbox list`, `auth
 * status` — fit a standard 80-column terminal without wrapping, also with
 * wide (CJK, emoji) senders and subjects, which stay aligned and are cut at a
 * character boundary. Run on a real pseudo-terminal 80 columns wide; widths
 * measured with string-width (an independent measure).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { PERSONAL_TOKEN } from './auth-helpers.js';
import { runOnPty } from './pty.js';

const WIDE = [
  'From: =?UTF-8?B?5bGx55Sw5aSq6YOO8J+YgPCfmIDwn5iA?= <yamada@example.com>', // 山田太郎😀😀😀
  'To: alice@example.com',
  'Subject: =?UTF-8?B?5Lya6K2w44Gu5rqW5YKZ44Gr44Gk44GE44Gm8J+TheOAgOWFqOWToeWPguWKoOOBl+OBpuOBj+OBoOOBleOBhA==?=',
  'Date: Sat, 28 Nov 2026 11:00:00 +0000',
  'Message-ID: <wide@example.com>',
  '',
  'hi',
  '',
].join('\r\n');

let world: World;
beforeAll(async () => {
  world = await startWorld();
  const dir = await mkdtemp(join(tmpdir(), 'lanyard-tables-'));
  await writeFile(join(dir, 'wide.eml'), WIDE);
  await writeFile(join(dir, 'emoji.eml'), WIDE.replace(/^From: .*$/m, 'From: =?UTF-8?B?YWLwn5iA8J+YgPCfmIDwn5iA8J+YgA==?= <e@example.com>'));
  for (const f of ['wide.eml', 'emoji.eml']) expect((await world.run(['--profile', 'emulator', 'mailbox', 'store', join(dir, f)])).code).toBe(0);
  expect((await world.run(['--profile', 'emulator', 'auth', 'token', '--with-token'], { input: PERSONAL_TOKEN })).code).toBe(0);
});
afterAll(async () => world?.stop());

async function onTerminal(args: string[]): Promise<string[]> {
  const r = await runOnPty({ args: ['--profile', 'emulator', ...args], env: { ...world.env, LANYARD_PAGER: '' }, send: null, cols: 80 });
  expect(r.exitCode, r.output).toBe(0);
  return r.output.split(/\r?\n/).filter((l) => l.trim() && !l.startsWith('!') && !/^Hosting tokens are stored/.test(l));
}

describe('tables at 80 columns', () => {
  it.each([
    ['ratelimit', 'status'],
    ['mailbox', 'list'],
    ['auth', 'status'],
  ])('%s %s: no line is wider than the terminal', async (...args) => {
    const lines = await onTerminal(args);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
  });

  it('mailbox list: wide senders and subjects stay aligned and are cut at a character boundary', async () => {
    const lines = await onTerminal(['mailbox', 'list']);
    const head = lines[0]!;
    const subjectAt = head.indexOf('SUBJECT');
    const rows = lines.filter((l) => /^[0-9a-f-]{36} /.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      expect(row).not.toContain('\ufffd');
      // The subject starts in the same terminal column as its header in every row.
      const subject = row.search(/会議|Welcome|Quarterly|Réunion/);
      if (subject >= 0) expect(stringWidth(row.slice(0, subject)), row).toBe(subjectAt);
    }
  });
});
