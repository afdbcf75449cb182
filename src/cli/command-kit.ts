/**
 * What every command declaration shares: the `--json`/`--ndjson` options and
 * the "Examples:" block. Command modules import this, never program.ts.
 */
import type { Command } from 'commander';

/** Adds the shared `--json` option (and `--ndjson` for streams) to a command. */
export function withJson(cmd: Command, opts: { ndjson?: boolean } = {}): Command {
  cmd.option('--json', 'print JSON for scripts');
  if (opts.ndjson) cmd.option('--ndjson', 'print one JSON object per line as items arrive');
  return cmd;
}

/** Appends an "Examples:" block to a command's help. */
export function examples(cmd: Command, lines: string[]): Command {
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
  return cmd;
}
