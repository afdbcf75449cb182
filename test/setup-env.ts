/**
 * Every test worker starts from a neutral environment: CI runs this suite with
 * CI=true, and Lanyard changes what it prints in CI (one JSON event line per
 * wait or retry, step summaries). Tests of that behaviour set these variables
 * themselves; every other test sees what a person at a terminal would.
 */
for (const name of ['CI', 'LANYARD_EVENTS', 'GITHUB_STEP_SUMMARY', 'GITHUB_ACTIONS']) delete process.env[name];

// The machine's extra CA bundle, kept from this process's start (test/vitest.config.ts says why), is back for what it runs.
const extraCaCerts = process.env.VITEST_NODE_EXTRA_CA_CERTS;
if (extraCaCerts !== undefined) {
  process.env.NODE_EXTRA_CA_CERTS = extraCaCerts;
  delete process.env.VITEST_NODE_EXTRA_CA_CERTS;
}
