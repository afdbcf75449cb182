/**
 * The rules both APIs apply to issues, comments, labels and reactions: who
 * may change what, and the service's limits on titles and bodies.
 */
import type { RepoRecord } from '../ratelimit/fixtures.js';
import type { IssueRecord } from './store.js';

/** An issue's title: at most 256 characters; a body or comment: at most 65,536 (the service's limits). */
export const TITLE_MAX = 256;
export const BODY_MAX = 65_536;

/** Why a title or body is refused (the service's wording), or undefined. */
export function invalidText(
  f: { title?: string | null; body?: string | null },
  o: { titleRequired?: boolean; bodyRequired?: boolean } = {},
): string | undefined {
  if (o.titleRequired && !f.title?.trim()) return "Title can't be blank";
  if (f.title !== undefined && f.title !== null && f.title.length > TITLE_MAX) return `Title is too long (maximum is ${TITLE_MAX} characters)`;
  if (o.bodyRequired && !f.body?.trim()) return "Body can't be blank";
  if (f.body && f.body.length > BODY_MAX) return `Body is too long (maximum is ${BODY_MAX} characters)`;
  return undefined;
}

/** Whether a user may triage a repository (labels, close and reopen anyone's issue): its owner. */
export const canTriage = (login: string | undefined, r: RepoRecord): boolean => !!login && login === r.owner;

/** Whether a user may edit an issue or a comment: its author, or one who triages the repository. */
export const canEdit = (login: string | undefined, author: string, r: RepoRecord): boolean => !!login && (login === author || canTriage(login, r));

/** Whether an issue may be closed or reopened by a user (its author, or one who triages). */
export const canClose = (login: string | undefined, i: IssueRecord, r: RepoRecord): boolean => canEdit(login, i.author, r);

/** An author's association with a repository, as both APIs report it: its owner, or none (the emulator has no collaborators). */
export const associationOf = (r: { owner: string }, author: string): 'OWNER' | 'NONE' => (r.owner === author ? 'OWNER' : 'NONE');
