/**
 * A repository's labels (`/repos/{owner}/{repo}/labels…`: list, read, create,
 * update, delete) and an issue's (`/issues/{number}/labels…`: list, add,
 * replace, clear, remove one), as the published description has them. Writes
 * need a caller who triages the repository, with a token whose scopes allow
 * writing to it.
 */
import { HttpError, type EmuRequest, type EmuResponse, type Router } from '../../../router.js';
import { readJsonObject, tooFewItems, wrongType } from '../body.js';
import type { RepoRecord } from '../ratelimit/fixtures.js';
import { paged } from '../paging.js';
import { forbidden, type IssueApi, invalid, issueOf, R, repoOf, text, writer } from './common.js';
import { labelJson } from './json.js';
import { canTriage } from './rules.js';
import { type IssueRecord, type LabelRecord, repoKey } from './store.js';

/** The longest description the service keeps. */
const DESCRIPTION_MAX = 100;
const COLOR = /^#?[0-9a-f]{6}$/i;

/** Label names of a body (`["bug"]` or `[{"name":"bug"}]`) as the repository's label ids; unknown names become new labels, as the service does. */
export function labelIds(api: IssueApi, repo: string, v: unknown): number[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v
    .map((x) =>
      typeof x === 'string' ? x : typeof x === 'object' && x && typeof (x as { name?: unknown }).name === 'string' ? (x as { name: string }).name : '',
    )
    .filter((n) => n.trim())
    .map((n) => (api.store.labelNamed(repo, n) ?? api.store.createLabel(repo, n, 'ededed', null)).id);
}

/**
 * The labels a body of `POST`/`PUT …/issues/{number}/labels` names: an object
 * with `labels` (names, or objects with a `name`), or, as the description
 * also allows (and PyGithub always sends), the array itself or one name as a
 * string. No body: none. Not JSON: 400; JSON of another shape: 422 in the
 * service's validator's words. An empty list is refused when adding (the
 * description's `minItems: 1`: nothing to add) and clears when setting (the
 * description says so, and PyGithub's `set_labels()` sends it). A blank name
 * is a 422 `invalid` Label name, as the service answers it.
 */
async function labelsOfBody(req: EmuRequest, o: { adding: boolean }): Promise<unknown[]> {
  if (!(await req.text()).trim()) return [];
  const j = await req.json();
  const v = j !== null && typeof j === 'object' && !Array.isArray(j) ? (j as { labels?: unknown }).labels : j;
  if (v === undefined) return [];
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list)) throw wrongType('properties/labels', v, 'an array');
  if (o.adding && list.length === 0) throw tooFewItems(1, 0);
  return list;
}

/** The 422 for a blank label name among those an issue's labels are given, if one is. */
function blankName(res: EmuResponse, list: unknown[]): boolean {
  const name = (x: unknown) => (typeof x === 'object' && x !== null ? (x as { name?: unknown }).name : x);
  const blank = list.map(name).find((n) => typeof n === 'string' && !n.trim());
  if (blank === undefined) return false;
  invalid(res, 'Label', 'name', 'invalid', undefined, blank);
  return true;
}

export function registerLabelRoutes(router: Router, api: IssueApi): void {
  registerLabels(router, api);
  registerLabelEdits(router, api);
  registerIssueLabels(router, api);
}

function registerLabels(router: Router, api: IssueApi): void {
  router.get(`${R}/labels`, (req, res) => {
    const { items, headers } = paged(req, api.baseUrl(), api.store.labelsOf(repoKey(repoOf(api, req))));
    res.json(
      200,
      items.map((l) => labelJson(api.json, l)),
      headers,
    );
  });
  router.get(`${R}/labels/:name`, (req, res) => res.json(200, labelJson(api.json, labelOf(api, req, repoOf(api, req)))));
  router.post(`${R}/labels`, async (req, res) => {
    const r = repoOf(api, req);
    const login = writer(api, req, res, r);
    if (!login) return;
    if (!canTriage(login, r)) return forbidden(res);
    const b = await readJsonObject(req);
    const name = text(b.name);
    if (!name?.trim()) return invalid(res, 'Label', 'name', 'missing_field');
    if (api.store.labelNamed(repoKey(r), name)) return invalid(res, 'Label', 'name', 'already_exists');
    if (b.color !== undefined && !(typeof b.color === 'string' && COLOR.test(b.color))) return invalid(res, 'Label', 'color', 'invalid');
    const color = typeof b.color === 'string' ? b.color.replace('#', '').toLowerCase() : 'ededed';
    const description = text(b.description) ?? null;
    if (description && description.length > DESCRIPTION_MAX)
      return invalid(res, 'Label', 'description', 'custom', 'description is too long (maximum is 100 characters)');
    res.json(201, labelJson(api.json, api.store.createLabel(repoKey(r), name, color, description)));
  });
}

function labelOf(api: IssueApi, req: EmuRequest, r: RepoRecord): LabelRecord {
  const l = api.store.labelNamed(repoKey(r), req.params.name!);
  if (!l) throw new HttpError(404, 'Not Found');
  return l;
}

/**
 * `PATCH …/labels/{name}`: `new_name` (422 when another label of the
 * repository has it, case-insensitively), `color` (six hex digits, `#`
 * allowed; 422 otherwise) and `description` (at most 100 characters).
 * `DELETE …/labels/{name}`: 204, and the label is gone from every issue.
 */
function registerLabelEdits(router: Router, api: IssueApi): void {
  const triager = (req: EmuRequest, res: EmuResponse): { r: RepoRecord; l: LabelRecord } | undefined => {
    const r = repoOf(api, req);
    const l = labelOf(api, req, r);
    const login = writer(api, req, res, r);
    if (!login) return undefined;
    if (!canTriage(login, r)) return void forbidden(res);
    return { r, l };
  };
  router.route('PATCH', `${R}/labels/:name`, async (req, res) => {
    const got = triager(req, res);
    if (!got) return;
    const { r, l } = got;
    const b = await readJsonObject(req);
    const name = text(b.new_name);
    if (name !== undefined && !name?.trim()) return invalid(res, 'Label', 'name', 'missing_field');
    const taken = name ? api.store.labelNamed(repoKey(r), name) : undefined;
    if (taken && taken !== l) return invalid(res, 'Label', 'name', 'already_exists');
    if (b.color !== undefined && !(typeof b.color === 'string' && COLOR.test(b.color))) return invalid(res, 'Label', 'color', 'invalid');
    const description = text(b.description);
    if (description && description.length > DESCRIPTION_MAX)
      return invalid(res, 'Label', 'description', 'custom', 'description is too long (maximum is 100 characters)');
    api.store.editLabel(l, {
      name: name ?? undefined,
      color: typeof b.color === 'string' ? b.color.replace('#', '').toLowerCase() : undefined,
      description,
    });
    res.json(200, labelJson(api.json, l));
  });
  router.delete(`${R}/labels/:name`, (req, res) => {
    const got = triager(req, res);
    if (!got) return;
    api.store.deleteLabel(got.l);
    res.empty(204);
  });
}

/** The labels of one issue: list, add, replace, clear, remove one. */
function registerIssueLabels(router: Router, api: IssueApi): void {
  const labelsOfIssue = (i: IssueRecord) => i.labels.flatMap((id) => (api.store.labels.has(id) ? [labelJson(api.json, api.store.labels.get(id)!)] : []));
  /** A write to an issue's labels by a caller who triages the repository; the issue's labels after it. */
  const onIssue = async (req: EmuRequest, res: EmuResponse, change: (i: IssueRecord, r: RepoRecord, login: string) => unknown, empty = false) => {
    const r = repoOf(api, req);
    const i = issueOf(api, req, r);
    const login = writer(api, req, res, r);
    if (!login) return;
    if (!canTriage(login, r)) return forbidden(res);
    if ((await change(i, r, login)) === false) return;
    if (empty) res.empty(204);
    else res.json(200, labelsOfIssue(i));
  };
  /** Adds the body's labels to an issue's, or (`adding` false) sets them; false once a blank name is answered. */
  const write = async (req: EmuRequest, res: EmuResponse, i: IssueRecord, r: RepoRecord, login: string, adding: boolean) => {
    const list = await labelsOfBody(req, { adding });
    if (blankName(res, list)) return false;
    const ids = labelIds(api, repoKey(r), list) ?? [];
    api.store.edit(i, login, { labels: adding ? [...i.labels, ...ids] : ids });
  };
  router.get(`${R}/issues/:number/labels`, (req, res) => res.json(200, labelsOfIssue(issueOf(api, req, repoOf(api, req)))));
  router.post(`${R}/issues/:number/labels`, (req, res) => onIssue(req, res, (i, r, login) => write(req, res, i, r, login, true)));
  router.put(`${R}/issues/:number/labels`, (req, res) => onIssue(req, res, (i, r, login) => write(req, res, i, r, login, false)));
  // Clearing them answers 204, as the description says.
  router.delete(`${R}/issues/:number/labels`, (req, res) => onIssue(req, res, (i, _r, login) => api.store.edit(i, login, { labels: [] }), true));
  router.delete(`${R}/issues/:number/labels/:name`, (req, res) =>
    onIssue(req, res, (i, r, login) => {
      const l = api.store.labelNamed(repoKey(r), req.params.name!);
      if (!l || !i.labels.includes(l.id)) throw new HttpError(404, 'Label does not exist');
      api.store.edit(i, login, { labels: i.labels.filter((id) => id !== l.id) });
    }),
  );
}
