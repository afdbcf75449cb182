'use strict';
// Stand-in for node:assert inside the bundled undici (build.mjs), which only
// ever calls assert(value[, message]): loading node:assert costs ≈ 4 ms at
// start-up, so the real one is required only when an assertion fails, and
// throws the same AssertionError.
module.exports = function assert(value, message) {
  if (!value) require('node:assert')(value, message);
};
