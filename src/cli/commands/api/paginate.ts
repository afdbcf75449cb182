/** `lanyard api --paginate`: every page of a GET, resumable with --checkpoint (loaded only for --paginate). */
import type { Context } from '../../context.js';
import type { ApiOptions } from './options.js';
import { UsageError } from '../../errors/usage-error.js';
import { ValidationError } from '../../../core/errors.js';
import type { HttpResponse, RequestSpec } from '../../../core/http/client.js';
import { apiPager, type FetchedPage, PageGuard } from '../../../core/api/pagination.js';
import { checkpointRun } from '../../../core/api/checkpoint.js';
import { runPages } from '../../../core/api/page-run.js';
import { ndjsonPageOutput, openCheckpoint, reportCheckpoint, requireLineOutput, shapedFormat } from '../../output/paged-output.js';
import type { ApiTarget } from './targets.js';

/** The request and what sends it, for `--paginate`. */
/** How run.ts sends one request (its error handling, --include). */
type Send = (http: Paging['http'], spec: RequestSpec, ctx: Context, opts: ApiOptions, t: ApiTarget) => Promise<HttpResponse>;

export interface Paging {
  http: Awaited<ReturnType<Context['http']>>;
  t: ApiTarget;
  spec: RequestSpec;
  headers: Record<string, string>;
}

/** `--paginate`: every page of a GET, as one JSON array or (--ndjson) one item per line; with --checkpoint, resumable. */
export async function paginate(ctx: Context, opts: ApiOptions, { http, t, spec, headers }: Paging, send: Send): Promise<void> {
  if (spec.method !== 'GET') throw new UsageError('--paginate works with GET requests only');
  if (opts.checkpoint !== undefined && spec.query) {
    // Resumed from a saved URL: the query is part of the first page's URL, not added to every page again.
    const u = new URL(spec.url);
    for (const [k, v] of Object.entries(spec.query)) u.searchParams.append(k, String(v));
    spec.url = u.toString();
    spec.query = undefined;
  }
  const get = async (url: string) => {
    const res = await send(http, { ...spec, url, streamResponse: false }, ctx, opts, t);
    const text = await res.text();
    try {
      return { headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
    } catch {
      throw new ValidationError('--paginate needs JSON responses');
    }
  };
  if (opts.checkpoint !== undefined) return paginateWithCheckpoint(ctx, opts, t, spec, headers, get);
  // Next pages only on the first page's origin, never one fetched before, and not endlessly empty.
  const pager = apiPager({ service: t.service, firstUrl: spec.url, get });
  const all: unknown[] = [];
  for (let url: string | undefined = spec.url; url; ) {
    const page = await pager.fetch(url);
    if (ctx.output.format === 'ndjson') for (const item of page.items) ctx.output.item(item);
    else all.push(...page.items);
    url = page.next;
  }
  if (ctx.output.format !== 'ndjson' && !opts.silent) ctx.output.document(all, undefined, { compact: !ctx.io.stdoutIsTTY });
}

/** `--paginate --ndjson --checkpoint FILE`: resumes where an interrupted run of the same request stopped. */
async function paginateWithCheckpoint(
  ctx: Context,
  opts: ApiOptions,
  t: ApiTarget,
  spec: RequestSpec,
  headers: Record<string, string>,
  get: (url: string) => Promise<FetchedPage>,
): Promise<void> {
  const file = opts.checkpoint!;
  requireLineOutput(ctx.output, 'api --paginate');
  if (opts.include) throw new UsageError('--checkpoint and --include are exclusive (headers of every page would be mixed into the resumable output)');
  const first = new URL(spec.url);
  const run = checkpointRun({
    command: 'api',
    profile: (await ctx.profile()).name,
    url: first.toString(),
    headers,
    // Whose listing it is: the account chosen with --user (several accounts on one host).
    extra: { service: t.service, user: (opts as { user?: string }).user },
    format: shapedFormat(ctx.output),
  });
  const probe = new PageGuard(first.toString());
  const cp = await openCheckpoint(ctx, file, run, (cursor) => probe.check(cursor));
  try {
    const pager = apiPager({ service: t.service, firstUrl: first.toString(), get: (url) => get(url), emptyPages: cp.saved?.emptyPages });
    if (cp.saved?.next) pager.guard.check(cp.saved.next);
    const r = await runPages({ first: first.toString(), fetch: (url) => pager.fetch(url), output: ndjsonPageOutput(ctx), checkpoint: cp });
    reportCheckpoint(ctx, file, r);
  } finally {
    await cp.close();
  }
}
