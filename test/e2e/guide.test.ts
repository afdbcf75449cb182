/**
 * The guide's examples (docs/examples/*.mjs) are real programs: each runs
 * against the emulator it starts, through the built library (the package's
 * self-reference `lanyard-cli`), and the guide shows each file verbatim.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT } from './harness.js';

const run = promisify(execFile);
const EXAMPLES = join(ROOT, 'docs', 'examples');
const guide = readFileSync(join(ROOT, 'docs', 'guide.md'), 'utf8');

/** What each example must print (its whole output, line by line). */
const EXPECTED: Record<string, RegExp[]> = {
  'device-flow.mjs': [
    /^Open http:\/\/127\.0\.0\.1:\d+\/login\/device and enter [A-Z0-9]{4}-[A-Z0-9]{4} \(valid for 15 minutes\)$/,
    /^signed in as mona; scopes: repo, read:org$/,
  ],
  'rate-limit.mjs': [
    /^core: 5000 of 5000 left$/,
    /^refused: API rate limit exceeded .*; the budget resets at /,
    /^primary rate limit: waiting \d s for the reset$/,
    /^after the reset: mona$/,
  ],
  'mailbox-raw.mjs': [/^From: bob@example\.com\r$/, /^To: alice@example\.com\r$/, /^Subject: Hello\r$/, /^\r$/, /^Streamed both ways\.\r$/],
  'protocol.mjs': [/^note: /, /^signed in on the way: true$/, /^tools: echo, time, confirm$/],
};

describe('docs/guide.md examples', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.mjs'));

  it('every example is in the guide, verbatim, and has its expected output here', () => {
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const f of files) expect(guide, f).toContain('```js\n' + readFileSync(join(EXAMPLES, f), 'utf8') + '```');
  });

  // Each example starts its own emulator in its own process: side by side (rate-limit.mjs waits for a reset).
  it.concurrent.each(Object.keys(EXPECTED))('%s runs against the emulator', async (file) => {
    const { stdout, stderr } = await run(process.execPath, [join(EXAMPLES, file)], { cwd: ROOT, env: cleanEnv(), timeout: 60_000 });
    expect(stderr).toBe('');
    const lines = stdout.replace(/\n$/, '').split('\n');
    expect(lines.length, stdout).toBe(EXPECTED[file]!.length);
    EXPECTED[file]!.forEach((re, i) => expect(lines[i], stdout).toMatch(re));
  });
});
