import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { examples, withShaping, runs, SIGNED_IN_EXITS } from '../../command-kit.js';
import type { ApiOptions } from './options.js';
import { paged } from '../../output/pager.js';
import { SERVICE_NAMES } from '../../../shared/services.js';

const collect = (v: string, prev: string[]) => [...prev, v];

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them): one line, what it does. */
export const summary = 'make an authenticated request to any endpoint';

/** Its own help's description: the detail. */
const description = 'make an authenticated request to any endpoint of a service (the right credential is injected)';

export function apiCommand(ctx: Context): Command {
  const cmd = new Command('api')
    .summary(summary)
    .description(description)
    .argument('<path-or-url>', 'a path of the chosen service (e.g. /user) or a full URL')
    .option('-X, --method <method>', 'HTTP method (default GET, or POST with fields or --input)')
    .option(
      '-H, --header <line>',
      'extra request header "Name: value" (repeatable); @FILE reads header lines from FILE, @- from stdin (a secret header stays out of argv)',
      collect,
      [],
    )
    .option('-f, --raw-field <key=value>', 'string parameter: query for GET, JSON body otherwise (repeatable)', collect, [])
    .option('-F, --field <key=value>', 'typed parameter: true/false/null/numbers as JSON, @file reads a file, @- stdin (repeatable)', collect, [])
    .option('--input <file>', 'request body from a file, or - for stdin (streamed)')
    .option('--paginate', 'follow next pages (Link rel="next", nextLink, mailbox start) and print one JSON array')
    .option('--ndjson', 'with --paginate: one JSON item per line as pages arrive')
    .option('--checkpoint <file>', 'with --paginate --ndjson: record progress in FILE after each page and resume from it (see docs/scripts-and-ci.md)')
    .option('-i, --include', 'print the status line and response headers (incl. rate-limit headers) before the body')
    .option('--silent', 'do not print the response body')
    .addOption(new Option('--service <name>', 'service whose base URL and credential to use for a path').choices(SERVICE_NAMES).default('hosting'))
    .option('--user <login>', 'use this stored hosting account instead of the active one')
    .action(runs(ctx, async (ctx, target: string, opts: ApiOptions) => (await import('./run.js')).runApi(ctx, target, opts)));
  withShaping(cmd, { ndjson: true });
  paged(cmd);
  examples(
    cmd,
    [
      'lanyard api /user',
      'lanyard api /user --user mona',
      'lanyard api /rate_limit -i',
      'lanyard api -X POST /user/repos -f name=demo -F private=true',
      'lanyard api /user/repos --paginate --ndjson',
      'lanyard api /user/repos --paginate --ndjson --checkpoint repos.checkpoint >> repos.ndjson',
      "lanyard api /user/repos --paginate --jq '.[].full_name'",
      "lanyard api /user --template '{{ login }} ({{ id }})'",
      'lanyard api -X GET /search/repositories -f q=lanyard',
      'lanyard api -X POST /user/repos --input body.json',
      'lanyard api https://git.example.com/api/v4/user -H @- < private-token-header.txt',
      'lanyard api --service health "/subscriptions/$SUB/providers/Microsoft.ResourceHealth/events?api-version=2025-05-01" --paginate',
      'lanyard api --service mailbox /label/0?metadata=true --paginate',
      'lanyard api --service echo -X POST /echo -f message=hi',
    ],
    SIGNED_IN_EXITS,
  );
  return cmd;
}
