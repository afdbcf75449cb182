/** Where a mailbox's API is: what the client and a profile's settings agree on (no request code, cheap to load). */
import { httpUrlOption } from '../options.js';
import { Mailbox } from '../../shared/mailbox.js';
import { pathSegment } from '../path-segment.js';

export interface MailboxTarget {
  baseUrl: string;
  domain: string;
  user: string;
}

/** The base URL of a mailbox's API: `<baseUrl>/rest/v2/<domain>/<user>/mailbox`, domain and user one path segment each. */
export function mailboxApiUrl(t: MailboxTarget): string {
  return `${httpUrlOption(t.baseUrl, 'baseUrl').replace(/\/+$/, '')}${Mailbox.pathPrefix}/${pathSegment(t.domain, 'mailbox domain')}/${pathSegment(t.user, 'mailbox user')}/mailbox`;
}
