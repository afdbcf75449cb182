/** The mailbox service's registry entry (see ../entry-kit.ts): its base URL, credential, exec variables, sign-in advice and doctor probe. */
import { mailboxApiUrl } from '../../../core/mailbox/target.js';
import { NONE, type ServiceEntry } from '../entry-kit.js';
import { mailboxTarget } from './wiring.js';

export const mailbox: ServiceEntry = {
  base: (settings, profile) => mailboxApiUrl(mailboxTarget(settings, profile)),
  // The mailbox API defines no authentication.
  provider: async () => NONE(),
  signIn: () => undefined,
  refused: () => 'the mailbox API refused the request (it defines no authentication of its own)',
  // The message list of the profile's mailbox.
  doctor: { probe: (url) => ({ url }) },
};
