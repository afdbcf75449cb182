/**
 * `--jq` and `--template` over `lanyard api`, as a run function against the
 * in-process emulator (formerly spawned in test/e2e/shape.test.ts, which keeps
 * the root hook's part: --jq implying --json, mailbox list per message): the
 * body shaped, per item with --ndjson, Liquid's helpers, and the errors: one
 * line with line and column before any request (exit 2), or while running
 * (exit 1).
 */
import { describe, expect, it } from 'vitest';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import { exitCodeFor, formatError } from '../../../../src/cli/errors/exit.js';
import { prepareShaping } from '../../../../src/cli/shape/prepare.js';
import { contextOnFakes } from '../../../fakes/context.js';
import { createTestIO } from '../../../fakes/io.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const TOKEN = 'lyp_emulator_default_token_0000000000000001';
const api = (target: string, o: Partial<ApiOptions>, r: RunOptions) =>
  cmd.run((ctx) => runApi(ctx, target, { header: [], rawField: [], field: [], service: 'hosting', ...o }), {
    format: 'json',
    ...r,
    env: { LANYARD_TOKEN: TOKEN },
  });

describe('--jq and --template over api', () => {
  it('a jq expression over the body; strings raw, other values compact JSON in a pipe', async () => {
    const r = await api('/user', {}, { jq: '.login, {id, type}' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('mona\n{"id":1,"type":"User"}\n');
  });

  it('--paginate: over the merged array; with --ndjson: per item', async () => {
    const all = await api('/user/repos', { paginate: true }, { jq: '[.[].name] | length' });
    expect(all.code, all.stderr).toBe(0);
    const n = Number(all.stdout.trim());
    expect(n).toBeGreaterThan(1);
    const each = await api('/user/repos', { paginate: true }, { format: 'ndjson', jq: '.name' });
    expect(each.code, each.stderr).toBe(0);
    expect(each.stdout.trim().split('\n')).toHaveLength(n);
    expect(each.stdout).not.toContain('{');
  });

  it('--template: Liquid with data, the object fields, standard filters and the tablerow helper', async () => {
    const r = await api('/user', {}, { template: '{{ login }}:{{ data.id }}:{{ data | json | size }}{{ "\\n" }}' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^mona:1:\d+\n$/);
    const t = await api('/user/repos', { paginate: true }, { template: '{% for x in data %}{% tablerow x.name, x.private %}{% endfor %}' });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^hello-world\tfalse\n/);
  });

  it('an expression that does not parse: one line naming line and column, exit 2, before any request', async () => {
    for (const [o, msg] of [
      [{ jq: '.login | ][' }, '--jq: syntax error, unexpected INVALID_CHARACTER (line 1, column 10)'],
      [{ jq: '.login |\n  map(.x' }, '--jq: syntax error, unexpected end of the expression (line 2, column 9)'],
      [{ jq: '.a | nosuch(1)' }, '--jq: nosuch/1 is not defined (line 1, column 6)'],
      [{ template: '{{ login | nosuch }}' }, '--template: undefined filter: nosuch (line 1, column 1)'],
      [{ jq: '.', template: 'x' }, '--jq and --template cannot be used together'],
    ] as const) {
      const io = createTestIO();
      const err = await prepareShaping(contextOnFakes(io, {}, {}), o).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(exitCodeFor(err)).toBe(2);
      expect(formatError(err, false).trim()).toBe(msg);
      expect(io.stdoutText() + io.stderrText()).toBe('');
    }
  });

  it('an error while running the expression is exit 1', async () => {
    const r = await api('/user', {}, { jq: '.login | error("no \\(.)")' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('--jq: no mona');
  });
});
