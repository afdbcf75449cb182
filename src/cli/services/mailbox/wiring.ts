/**
 * The mailbox API's endpoints as commands use them: the profile's
 * mailbox.baseUrl, mailbox.domain and mailbox.user (--domain and --user win).
 * The one place a profile becomes the mailbox service's target; the API
 * defines no authentication, so there is no credential to resolve.
 */
import type { Context } from '../../context.js';
import { requireSetting, type ProfileSettings } from '../../../core/config/settings.js';
import { ValidationError } from '../../../core/errors.js';
import type { MailboxClient } from '../../../core/mailbox/client.js';
import type { MailboxTarget } from '../../../core/mailbox/target.js';

/** The mailbox of a profile; a domain or user that is empty or holds `/ \\ ? # %` or white space is refused (exit 2). */
export function mailboxTarget(settings: ProfileSettings, profile: string, o: { domain?: string; user?: string } = {}): MailboxTarget {
  const baseUrl = requireSetting(settings, 'mailbox.baseUrl', profile);
  const domain = o.domain ?? requireSetting(settings, 'mailbox.domain', profile);
  const user = o.user ?? requireSetting(settings, 'mailbox.user', profile);
  for (const [flag, v] of [
    ['--domain', domain],
    ['--user', user],
  ] as const) {
    if (!v.trim() || /[/\\?#%\s]/.test(v)) throw new ValidationError(`${flag}: "${v}" is not a valid mailbox ${flag.slice(2)}`);
  }
  return { baseUrl, domain, user };
}

/** The client of the selected profile's mailbox. */
export async function mailboxClient(ctx: Context, o: { domain?: string; user?: string }): Promise<MailboxClient> {
  const [{ name, settings }, { MailboxClient }] = await Promise.all([ctx.profile(), import('../../../core/mailbox/client.js')]);
  return new MailboxClient(await ctx.http(), mailboxTarget(settings, name, o), ctx.signal);
}
