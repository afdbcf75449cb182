/** Registers the OAuth side of the hosting emulator (web pages at the root). */
import type { Router } from '../../../router.js';
import type { HostingState } from '../state.js';
import { registerApplicationsPage } from './applications.js';
import { registerAuthorize } from './authorize.js';
import { registerDeviceFlow } from './device.js';
import { registerTokenEndpoint } from './token.js';
import { HostingOAuthPath } from '../../../../shared/hosting-oauth.js';
import { endSession } from './session.js';
import { layout } from './pages.js';

export function registerOAuth(router: Router, state: HostingState, webBase: () => string): void {
  registerAuthorize(router, state);
  registerTokenEndpoint(router, state);
  registerDeviceFlow(router, state, webBase);
  registerApplicationsPage(router, state);
  // Signs the browser out of the emulator's pages.
  router.post(HostingOAuthPath.logout, (req, res) => {
    endSession(state, req, res);
    res.html(200, layout('Signed out', '<p id="done">You are signed out.</p>'));
  });
}
