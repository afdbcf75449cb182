/**
 * Every test worker starts from a neutral environment: CI runs this suite with
 * CI=true, and Lanyard changes what it prints in CI (one JSON event line per
 * wait or retry, step summaries). Tests of that behaviour set these variables
 * themselves; every other test sees what a person at a terminal would.
 */
for (const name of ['CI', 'LANYARD_EVENTS', 'GITHUB_STEP_SUMMARY', 'GITHUB_ACTIONS']) delete process.env[name];
