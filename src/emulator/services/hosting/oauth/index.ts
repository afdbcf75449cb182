/** Registers the OAuth side of the hosting emulator (web pages at the root). */
import type { Router } from '../../../router.js';
import type { HostingState } from '../state.js';
import { registerApplicationsPage } from './applications.js';
import { registerAuthorize } from './authorize.js';
import { registerDeviceFlow } from './device.js';
import { registerTokenEndpoint } from './token.js';

export function registerOAuth(router: Router, state: HostingState, webBase: () => string): void {
  registerAuthorize(router, state);
  registerTokenEndpoint(router, state);
  registerDeviceFlow(router, state, webBase);
  registerApplicationsPage(router, state);
}
