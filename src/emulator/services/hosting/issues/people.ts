/**
 * An issue's lock and its assignees over REST, as the published description
 * has them: `PUT|DELETE …/issues/{number}/lock` (those who push: the owner;
 * `lock_reason` one of four; 204), and who may be assigned
 * (`GET …/assignees`, `GET …/assignees/{assignee}`, 204 or 404), an issue's
 * assignees added and removed (`POST|DELETE …/issues/{number}/assignees`,
 * 201 and 200 with the issue; logins of others than those who push are
 * silently ignored, as the description says) and checked
 * (`GET …/issues/{number}/assignees/{assignee}`).
 */
import { HttpError, type EmuRequest, type EmuResponse, type Router } from '../../../router.js';
import { paged } from '../paging.js';
import { readJsonObject, rubyInspect, wrongType } from '../body.js';
import { forbidden, type IssueApi, issueOf, R, repoOf, writer } from './common.js';
import { issueJson } from './json.js';
import { canTriage } from './rules.js';
import type { IssueRecord } from './store.js';

export const LOCK_REASONS = ['off-topic', 'too heated', 'resolved', 'spam'] as const;

export function registerPeopleRoutes(router: Router, api: IssueApi): void {
  registerLock(router, api);
  registerAssignees(router, api);
}

/** The issue a write names, once the caller is known to push to its repository (else answered: 401/403/404). */
function pushed(api: IssueApi, req: EmuRequest, res: EmuResponse): { i: IssueRecord; login: string } | undefined {
  const r = repoOf(api, req);
  const i = issueOf(api, req, r);
  const login = writer(api, req, res, r);
  if (!login) return undefined;
  if (!canTriage(login, r)) return void forbidden(res);
  return { i, login };
}

function registerLock(router: Router, api: IssueApi): void {
  router.put(`${R}/issues/:number/lock`, async (req, res) => {
    const w = pushed(api, req, res);
    if (!w) return;
    const reason = (await readJsonObject(req)).lock_reason;
    if (reason !== undefined && reason !== null && !LOCK_REASONS.includes(reason as (typeof LOCK_REASONS)[number])) {
      // The schema validator's words for a value outside an enum.
      throw new HttpError(
        422,
        `Invalid request.\n\n${typeof reason === 'string' ? reason : rubyInspect(reason)} is not a member of ${rubyInspect(LOCK_REASONS)}.`,
      );
    }
    api.store.setLock(w.i, w.login, true, typeof reason === 'string' ? reason : null);
    res.empty(204);
  });
  router.delete(`${R}/issues/:number/lock`, (req, res) => {
    const w = pushed(api, req, res);
    if (!w) return;
    api.store.setLock(w.i, w.login, false);
    res.empty(204);
  });
}

/** The logins a body's `assignees` names (strings, or objects with a `login`); a body without them is a 422. */
async function assigneesOfBody(req: EmuRequest): Promise<string[]> {
  const b = await readJsonObject(req);
  if (b.assignees === undefined) throw new HttpError(422, 'Invalid request.\n\n"assignees" wasn\'t supplied.');
  if (!Array.isArray(b.assignees)) throw wrongType('properties/assignees', b.assignees, 'an array');
  return b.assignees.flatMap((a) => {
    const login = typeof a === 'object' && a !== null ? (a as { login?: unknown }).login : a;
    return typeof login === 'string' ? [login] : [];
  });
}

function registerAssignees(router: Router, api: IssueApi): void {
  // Who may be assigned: every user (the emulator has no collaborators, and its issues accept any user), as the query API's assignableUsers.
  router.get(`${R}/assignees`, (req, res) => {
    repoOf(api, req);
    const all = api.json.logins().map((l) => api.json.user(l));
    const { items, headers } = paged(req, api.baseUrl(), all);
    res.json(200, items, headers);
  });
  router.get(`${R}/assignees/:assignee`, (req, res) => {
    repoOf(api, req);
    if (!api.json.exists(req.params.assignee!)) throw new HttpError(404, 'Not Found');
    res.empty(204);
  });
  router.get(`${R}/issues/:number/assignees/:assignee`, (req, res) => {
    issueOf(api, req, repoOf(api, req));
    if (!api.json.exists(req.params.assignee!)) throw new HttpError(404, 'Not Found');
    res.empty(204);
  });
  const change = async (req: EmuRequest, res: EmuResponse, adding: boolean) => {
    const r = repoOf(api, req);
    const i = issueOf(api, req, r);
    const login = writer(api, req, res, r);
    if (!login) return;
    const named = await assigneesOfBody(req);
    // From anyone who does not push, and for logins no user has, the change is silently ignored.
    if (canTriage(login, r)) {
      const known = named.flatMap((l) => api.json.login(l) ?? []);
      const gone = new Set(named.map((l) => l.toLowerCase()));
      const assignees = adding ? [...new Set([...i.assignees, ...known])] : i.assignees.filter((a) => !gone.has(a.toLowerCase()));
      api.store.edit(i, login, { assignees });
    }
    res.json(adding ? 201 : 200, issueJson(api.json, i));
  };
  router.post(`${R}/issues/:number/assignees`, (req, res) => change(req, res, true));
  router.delete(`${R}/issues/:number/assignees`, (req, res) => change(req, res, false));
}
