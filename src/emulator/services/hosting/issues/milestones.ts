/**
 * A repository's milestones over REST (`/repos/{owner}/{repo}/milestones…`:
 * list, read, create, update, delete) and the `milestone` an issue is given
 * on create and update, as the published description has them. Writes need
 * a caller who pushes to the repository (its owner; else 403), with a token
 * whose scopes allow writing to it; bodies the schema refuses are 422s in the
 * service's validator's words.
 */
import { HttpError, type EmuRequest, type EmuResponse, type Router } from '../../../router.js';
import { paged } from '../paging.js';
import { readJsonObject, rubyInspect } from '../body.js';
import { forbidden, type IssueApi, idParam, invalid, R, repoOf, writer } from './common.js';
import { milestoneJson } from './json.js';
import type { MilestoneFields, MilestoneRecord } from './milestone-store.js';
import { canTriage } from './rules.js';
import { repoKey } from './store.js';

const STATES = ['open', 'closed'] as const;

/** The milestone id an issue body's `milestone` names: undefined when not given, null to clear, an Error for one the repository does not have. */
export function milestoneOfBody(api: IssueApi, repo: string, v: unknown): number | null | undefined | Error {
  if (v === undefined) return undefined;
  if (v === null) return null;
  const m = typeof v === 'number' || typeof v === 'string' ? api.store.milestones.numbered(repo, idParam(String(v))) : undefined;
  return m ? m.id : new Error(String(v));
}

/** The fields of a milestone body, or the 422 the service's validator answers. */
function fieldsOf(b: Record<string, unknown>): MilestoneFields {
  const f: MilestoneFields = {};
  if (b.title !== undefined) {
    if (typeof b.title !== 'string') throw new HttpError(422, `Invalid request.\n\nFor 'properties/title', ${rubyInspect(b.title)} is not a string.`);
    f.title = b.title;
  }
  if (b.state !== undefined) {
    if (!STATES.includes(b.state as 'open')) throw new HttpError(422, `Invalid request.\n\n${String(b.state)} is not a member of ${rubyInspect(STATES)}.`);
    f.state = b.state as 'open' | 'closed';
  }
  if (b.description !== undefined) f.description = typeof b.description === 'string' ? b.description : null;
  if (b.due_on !== undefined) {
    // A date and time (ISO 8601), or a date alone (as PyGithub sends it): its midnight, UTC.
    const ms =
      typeof b.due_on === 'string' && /^\d{4}-\d\d-\d\d(?:T|$)/.test(b.due_on)
        ? Date.parse(b.due_on.length === 10 ? `${b.due_on}T00:00:00Z` : b.due_on)
        : Number.NaN;
    if (b.due_on !== null && Number.isNaN(ms)) throw new HttpError(422, `Invalid request.\n\n${String(b.due_on)} is not a valid date-time.`);
    f.dueOn = b.due_on === null ? null : Math.floor(ms / 1000) * 1000;
  }
  return f;
}

/** Open ones first by due date (none last), or by how complete they are; `direction` asc by default. */
function ordered(api: IssueApi, list: MilestoneRecord[], sort: string | null, direction: string | null): MilestoneRecord[] {
  const done = (m: MilestoneRecord) => {
    const { open, closed } = api.store.milestones.counts(m.id);
    return open + closed ? closed / (open + closed) : 0;
  };
  const key = (m: MilestoneRecord) => (sort === 'completeness' ? done(m) : (m.dueOn ?? Number.MAX_SAFE_INTEGER));
  const sign = direction === 'desc' ? -1 : 1;
  return [...list].sort((a, b) => sign * (key(a) - key(b) || a.number - b.number));
}

export function registerMilestoneRoutes(router: Router, api: IssueApi): void {
  const of = (req: EmuRequest) => {
    const r = repoOf(api, req);
    const m = api.store.milestones.numbered(repoKey(r), idParam(req.params.number));
    if (!m) throw new HttpError(404, 'Not Found');
    return m;
  };
  /** The caller who pushes to the repository a write names; else answered. */
  const pusher = (req: EmuRequest, res: EmuResponse) => {
    const r = repoOf(api, req);
    const login = writer(api, req, res, r);
    if (!login) return undefined;
    if (!canTriage(login, r)) return void forbidden(res);
    return { r, login };
  };
  router.get(`${R}/milestones`, (req, res) => {
    const state = req.query.get('state') ?? 'open';
    const all = api.store.milestones.of(repoKey(repoOf(api, req))).filter((m) => state === 'all' || m.state === state);
    const { items, headers } = paged(req, api.baseUrl(), ordered(api, all, req.query.get('sort'), req.query.get('direction')));
    res.json(
      200,
      items.map((m) => milestoneJson(api.json, m)),
      headers,
    );
  });
  router.get(`${R}/milestones/:number`, (req, res) => res.json(200, milestoneJson(api.json, of(req))));
  router.post(`${R}/milestones`, async (req, res) => {
    const w = pusher(req, res);
    if (!w) return;
    const f = fieldsOf(await readJsonObject(req));
    if (f.title === undefined) throw new HttpError(422, 'Invalid request.\n\n"title" wasn\'t supplied.');
    if (api.store.milestones.titled(repoKey(w.r), f.title)) return invalid(res, 'Milestone', 'title', 'already_exists');
    res.json(201, milestoneJson(api.json, api.store.milestones.create(repoKey(w.r), w.login, { ...f, title: f.title })));
  });
  router.route('PATCH', `${R}/milestones/:number`, async (req, res) => {
    const m = of(req);
    if (!pusher(req, res)) return;
    const f = fieldsOf(await readJsonObject(req));
    const taken = f.title === undefined ? undefined : api.store.milestones.titled(m.repo, f.title);
    if (taken && taken !== m) return invalid(res, 'Milestone', 'title', 'already_exists');
    api.store.milestones.edit(m, f);
    res.json(200, milestoneJson(api.json, m));
  });
  router.delete(`${R}/milestones/:number`, (req, res) => {
    const m = of(req);
    if (!pusher(req, res)) return;
    api.store.deleteMilestone(m.id);
    res.empty(204);
  });
}
