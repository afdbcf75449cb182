'use strict';
// Stand-in for node:child_process inside the bundled commander (build.mjs),
// which requires it when it loads but uses it only to run executable
// subcommands (Lanyard has none): node:child_process costs ≈ 3 ms at
// start-up, so the real module is required only when a property is read.
// Nothing of commander's source is changed.
module.exports = new Proxy(
  {},
  {
    get: (_, key) => require('node:child_process')[key],
    has: (_, key) => key in require('node:child_process'),
  },
);
