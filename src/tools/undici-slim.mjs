// Stand-in for `undici` in the dist/ bundle (build.mjs aliases it): the two
// things Lanyard uses, `Agent` and `request(url, opts)`, taken from undici's
// own modules. undici's index also loads fetch, WebSocket, EventSource, the
// caches, the mock agents and the proxy agents (about 1 MB bundled) - too
// much to parse on every HTTP command. Importing anything else from 'undici'
// in src/ fails the build ("No matching export"), so this cannot drift
// silently; the sources and the tests still use the real package.
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import util from 'undici/lib/core/util.js';
import errors from 'undici/lib/core/errors.js';
import global from 'undici/lib/global.js';

// As undici's index does: request/stream/pipeline/... on every dispatcher.
Object.assign(Dispatcher.prototype, api);

export { Agent, Dispatcher };

/** undici's `request(url, opts)` (its makeDispatcher(api.request), without the callback form). */
export function request(url, opts) {
  if (!url || (typeof url !== 'string' && typeof url !== 'object')) throw new errors.InvalidArgumentError('invalid url');
  if (opts != null && typeof opts !== 'object') throw new errors.InvalidArgumentError('invalid opts');
  let parsed;
  if (opts && opts.path != null) {
    if (typeof opts.path !== 'string') throw new errors.InvalidArgumentError('invalid opts.path');
    parsed = new URL(util.parseOrigin(url).origin + (opts.path.startsWith('/') ? opts.path : `/${opts.path}`));
  } else {
    opts ??= typeof url === 'object' ? url : {};
    parsed = util.parseURL(url);
  }
  const { agent, dispatcher = global.getGlobalDispatcher() } = opts;
  if (agent) throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
  return api.request.call(dispatcher, {
    ...opts,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: opts.method || (opts.body ? 'PUT' : 'GET'),
  });
}
