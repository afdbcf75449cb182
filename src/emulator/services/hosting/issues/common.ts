/**
 * What the REST routes of issues, comments, labels and reactions share: the
 * context they are given, the caller who writes, the repository and issue a
 * path names, and the API's error answers.
 */
import { Hosting } from '../../../../shared/constants.js';
import { HttpError, type EmuRequest, type EmuResponse } from '../../../router.js';
import type { RepoRecord, RepoStore } from '../ratelimit/fixtures.js';
import { apiError } from '../errors.js';
import { scopesWrite } from '../scopes.js';
import type { IssueJsonContext } from './json.js';
import { type IssueRecord, type IssueStore, repoKey } from './store.js';

export interface IssueApi {
  baseUrl(): string;
  repos: RepoStore;
  store: IssueStore;
  json: IssueJsonContext;
  visible(req: EmuRequest, r: RepoRecord | undefined): boolean;
  /** The signed-in user of a request, if any. */
  userOf(req: EmuRequest): string | undefined;
  /** The answer to a write by a caller that is no user (401 anonymous, 403 an integration's token). */
  refuseNonUser(req: EmuRequest, res: EmuResponse): void;
  /** The scopes of a request's classic token (personal or OAuth app); undefined for any other caller. */
  scopesOf(req: EmuRequest): readonly string[] | undefined;
}

export const R = `${Hosting.apiPathPrefix}/repos/:owner/:repo`;

/** A 422 `Validation Failed` for one field (with the value refused, when given, as the service names it). */
export const invalid = (res: EmuResponse, resource: string, field: string, code: string, message?: string, value?: unknown) =>
  res.json(
    422,
    apiError(422, 'Validation Failed', {
      errors: [{ ...(value !== undefined ? { value } : {}), resource, code, field, ...(message ? { message } : {}) }],
    }),
  );
export const forbidden = (res: EmuResponse, message = 'Must have admin rights to Repository.') => res.json(403, apiError(403, message));

/** A string (or number) field of a body; null as given; undefined for anything else. */
export const text = (v: unknown): string | null | undefined => (v === null ? null : typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/**
 * The signed-in user who makes a write, or undefined once the refusal is
 * sent. A classic token (personal or OAuth app) needs the `repo` scope, or
 * `public_repo` for a public repository (starring included), as the
 * service's scope rules say; without it the service answers 404 Not Found,
 * as for a repository the caller may not see. Installable-app tokens carry
 * permissions, not scopes.
 */
export function writer(api: IssueApi, req: EmuRequest, res: EmuResponse, r: RepoRecord): string | undefined {
  const login = api.userOf(req);
  if (!login) {
    api.refuseNonUser(req, res);
    return undefined;
  }
  if (!scopesWrite(api.scopesOf(req), r.private)) throw new HttpError(404, 'Not Found');
  return login;
}

/** The repository a request names, if the caller may see it; else a 404. */
export function repoOf(api: IssueApi, req: EmuRequest): RepoRecord {
  const r = api.repos.get(req.params.owner!, req.params.repo!);
  if (!api.visible(req, r)) throw new HttpError(404, 'Not Found');
  return r!;
}

/**
 * The number or id a path segment names: digits without a leading zero only
 * (`1.0`, `0x1`, `1e0`, ` 1` and `01` name nothing, as on the service); else
 * NaN, which no record has.
 */
export function idParam(v: string | undefined): number {
  return v !== undefined && /^[1-9]\d{0,15}$/.test(v) ? Number(v) : Number.NaN;
}

export function issueOf(api: IssueApi, req: EmuRequest, r: RepoRecord): IssueRecord {
  const i = api.store.issueOf(repoKey(r), idParam(req.params.number));
  if (!i) throw new HttpError(404, 'Not Found');
  return i;
}
