/** Hosting sign-in commands; each lives in its own module, loaded on demand. */
export { runAuthDevice } from './device.js';
export { runAuthLogin } from './login.js';
export { runAuthToken, runAuthTokenCreate } from './token.js';
export { runAuthStatus } from './status.js';
export { runAuthLogout } from './logout.js';
