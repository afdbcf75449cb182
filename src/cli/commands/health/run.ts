/** Run functions of `lanyard health events` and `lanyard health event`. */
import type { Context } from '../../context.js';
import type { HttpClient } from '../../../core/http/client.js';
import type { CredentialProvider } from '../../../core/auth/provider.js';
import { requireSetting } from '../../../core/config/settings.js';
import { LanyardError, ValidationError } from '../../../core/errors.js';
import { buildEventsFilter } from '../../../core/health/filter.js';
import { sinceToQueryStartTime } from '../../../core/health/dates.js';
import { findEvent, iterateEvents, type EventsQuery } from '../../../core/health/events.js';
import { Health } from '../../../shared/constants.js';
import type { HealthEvent } from '../../../shared/health.js';
import { ExitStatus } from '../../errors/exit.js';
import { UsageError } from '../../errors/usage-error.js';
import { pathSegment } from '../../../core/path-segment.js';
import { parseIntOption } from '../../option-parse.js';
import { healthAuth } from '../../services/health/wiring.js';
import type { HealthCheckOptions, HealthEventOptions, HealthEventsOptions, HealthQueryOptions } from './options.js';
import { seenState } from '../../state.js';
import { ExitCode } from '../../../shared/exit-codes.js';
import { renderEventDetail, renderEventsTable } from './render.js';

interface Prepared {
  http: HttpClient;
  query: EventsQuery;
  auth: CredentialProvider;
}

/**
 * Options → the query (validated before any request), the credential strategy and the HTTP client.
 * `since`: the window when `--since` is not given (default: none sent, the API's 3 days).
 */
async function prepare(ctx: Context, o: HealthQueryOptions, since?: string): Promise<Prepared> {
  const hasTerms = !!(o.service?.length || o.region?.length);
  if (o.filter !== undefined && hasTerms)
    throw new UsageError('--filter cannot be combined with --service/--region', 'put every term in --filter, or use only --service/--region');
  if (o.filter !== undefined && !o.filter.trim()) throw new UsageError('--filter must not be empty');
  const apiVersion = (o.apiVersion ?? Health.defaultApiVersion).trim();
  if (!apiVersion) throw new UsageError('--api-version must not be empty');
  const filter = o.filter ?? buildEventsFilter(o.service, o.region);
  const window = o.since ?? since;
  const queryStartTime = window === undefined ? undefined : sinceToQueryStartTime(window, ctx.clock.now());
  const { name, settings } = await ctx.profile();
  const subscriptionId = o.subscription ?? settings['health.subscriptionId'];
  if (!subscriptionId) {
    throw new ValidationError('no subscription: pass --subscription ID', {
      hint: `or run \`lanyard config set health.subscriptionId <id> --profile ${name}\``,
    });
  }
  pathSegment(subscriptionId, o.subscription !== undefined ? '--subscription' : 'health.subscriptionId'); // refused before any credential is looked up
  const managementUrl = requireSetting(settings, 'health.managementUrl', name);
  const auth = await healthAuth(ctx, settings);
  return {
    http: await ctx.http(),
    auth,
    query: {
      managementUrl,
      subscriptionId,
      vendor: settings['health.vendor'] || Health.defaultVendor,
      apiVersion,
      ...(filter !== undefined ? { filter } : {}),
      ...(queryStartTime !== undefined ? { queryStartTime } : {}),
    },
  };
}

export async function runHealthEvents(ctx: Context, o: HealthEventsOptions): Promise<void> {
  if (o.all && o.max !== undefined) throw new UsageError('--all and --max cannot be used together');
  const max = o.max === undefined ? undefined : parseIntOption(o.max, '--max', 1);
  const p = await prepare(ctx, o);
  const it = iterateEvents(p.http, p.query, p.auth, { all: !!o.all, ...(max !== undefined ? { max } : {}), signal: ctx.signal });
  // --new: what the previous --new run saw (tracking id and last update) is left out.
  const state = o.new ? await seenState(ctx, 'health-events', [p.query.subscriptionId]) : undefined;
  const seen: string[] = [];
  const fresh = (e: HealthEvent) => {
    const key = `${e.name ?? e.id ?? ''}@${e.properties?.lastUpdateTime ?? ''}`;
    seen.push(key);
    return !state?.previous?.has(key);
  };
  if (ctx.output.format === 'ndjson') {
    for (;;) {
      const r = await it.next();
      if (r.done) {
        await state?.save(seen);
        return moreHint(ctx, r.value.nextLink, false);
      }
      if (fresh(r.value)) ctx.output.item(r.value);
    }
  }
  const events: HealthEvent[] = [];
  let rest: string | undefined;
  for (;;) {
    const r = await it.next();
    if (r.done) {
      rest = r.value.nextLink;
      break;
    }
    if (fresh(r.value)) events.push(r.value);
  }
  await state?.save(seen);
  ctx.output.document(events, () => {
    if (events.length) return renderEventsTable(ctx.io, events);
    ctx.io.err(
      `No ${state ? 'new ' : ''}health events in subscription ${p.query.subscriptionId}${p.query.queryStartTime ? ` since ${p.query.queryStartTime}` : ' in the last 3 days (see --since)'}${p.query.filter ? ' matching the filter' : ''}.`,
    );
  });
  moreHint(ctx, rest, max !== undefined);
}

function moreHint(ctx: Context, nextLink: string | undefined, capped: boolean): void {
  if (nextLink && ctx.io.stderrIsTTY)
    ctx.io.err(capped ? 'More events are available (raise --max or use --all).' : 'More events are available: use --all to follow every page.');
}

export async function runHealthEvent(ctx: Context, trackingId: string, o: HealthEventOptions): Promise<void> {
  if (!trackingId.trim()) throw new UsageError('a tracking id is required');
  const p = await prepare(ctx, o);
  const ev = await findEvent(p.http, p.query, p.auth, trackingId.trim(), ctx.signal);
  if (!ev) {
    throw new LanyardError(
      'not_found',
      `no event with tracking id ${trackingId} in subscription ${p.query.subscriptionId}${p.query.queryStartTime ? ` since ${p.query.queryStartTime}` : ' in the last 3 days'}`,
      {
        hint: 'older events: pass --since (e.g. --since 30d or --since 5/12/2025)',
      },
    );
  }
  ctx.output.document(ev, () => renderEventDetail(ctx.io, ev));
}

const LEVELS = ['informational', 'warning', 'error', 'critical'] as const;

/** The level of an event as an index of LEVELS (unknown levels count as informational). */
function levelOf(e: HealthEvent): number {
  return Math.max(0, LEVELS.indexOf(String(e.properties?.eventLevel ?? e.properties?.level ?? '').toLowerCase() as (typeof LEVELS)[number]));
}

/**
 * How far back `health check` looks without `--since` (by lastUpdateTime).
 * The API's default window, 3 days, would hide an event still Active whose
 * last update is older: the gate would pass during a long outage. Service
 * Health keeps an incident in its active view for 90 days while it is active
 * or updated, and shows 90 days of history; the REST API serves events up to
 * a year after their last update, so `--since` may reach further.
 */
export const CHECK_WINDOW_DAYS = 90;

/**
 * `health check`: the active events (every page) of the query, at `--impact`
 * level or worse, updated in the last CHECK_WINDOW_DAYS days unless `--since`
 * says otherwise; with `--fail-if-active`, exit 5 when there is one — decided
 * before the report is written, so a reader that stops early (`| head`)
 * cannot turn a failed gate into a pass.
 */
export async function runHealthCheck(ctx: Context, o: HealthCheckOptions): Promise<void> {
  const min = o.impact ? LEVELS.indexOf(o.impact) : 0;
  const p = await prepare(ctx, o, `${CHECK_WINDOW_DAYS}d`);
  const active: HealthEvent[] = [];
  for await (const e of iterateEvents(p.http, p.query, p.auth, { all: true, signal: ctx.signal })) {
    if (e.properties?.status === 'Active' && levelOf(e) >= min) active.push(e);
  }
  const failing = !!o.failIfActive && active.length > 0;
  if (failing) ctx.exitWith(ExitCode.GateFailed);
  ctx.output.document({ active: active.length, events: active }, () => {
    if (active.length) renderEventsTable(ctx.io, active);
  });
  const since = p.query.queryStartTime;
  const window = o.since === undefined ? `updated in the last ${CHECK_WINDOW_DAYS} days (since ${since}; --since widens it)` : `updated since ${since}`;
  const what = `active health event${active.length === 1 ? '' : 's'}${o.impact ? ` at level ${o.impact} or worse` : ''} in subscription ${p.query.subscriptionId} ${window}`;
  if (!active.length) return ctx.io.err(`No ${what}.`);
  ctx.io.err(`${active.length} ${what}${failing ? ': failing (--fail-if-active)' : ''}.`);
  if (failing) throw new ExitStatus(ExitCode.GateFailed);
}
