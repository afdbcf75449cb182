/**
 * Every environment variable Lanyard reads, with its meaning: the
 * "Environment:" block of `lanyard --help` and so of the command reference
 * (docs/commands.md). test/unit/cli/environment.test.ts fails when the code
 * reads a variable this list does not name, or this list names one nobody
 * reads.
 */

/** [name, meaning]; the meaning fits the help's right-hand column (about 50 characters). */
export const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ['LANYARD_PROFILE', 'profile to use (--profile)'],
  ['LANYARD_DEBUG=1', 'trace HTTP on stderr, secrets redacted (--debug)'],
  ['LANYARD_RATE_LIMIT_WAIT=1', 'wait out rate limits (--wait)'],
  ['LANYARD_RATE_LIMIT_MAX_WAIT', 'longest rate-limit wait (--max-wait)'],
  ['LANYARD_TIMEOUT', 'deadline of each HTTP request (--timeout)'],
  ['LANYARD_BASIC_CLIENT=1', 'hosting calls as the OAuth app (--basic-client)'],
  ['NO_COLOR', 'no colour (--no-color)'],
  ['FORCE_COLOR', 'colour on when stderr is not a terminal (0: off)'],
  ['LANYARD_TOKEN', 'hosting token, used before any stored one'],
  ['WORKFLOW_TOKEN', 'workflow token; hosting, after LANYARD_TOKEN'],
  ['LANYARD_CLIENT_SECRET', 'OAuth client secret (read instead of stdin)'],
  ['LANYARD_API_KEY', 'echo API key, used before the stored one'],
  ['LANYARD_HEALTH_TOKEN', 'service-health token, used before the stored one'],
  ['LANYARD_ID_TOKEN', 'ID token for cross-app access (protocol)'],
  ['LANYARD_WORKLOAD_TOKEN', 'workload JWT for protocol sign-in (--client-id)'],
  ['LANYARD_DPOP', '1: DPoP-bound protocol tokens, 0: never (--dpop)'],
  ['LANYARD_ELICITATION', 'prompt, decline or defaults (--elicitation)'],
  ['LANYARD_CONFIG_DIR', 'directory of config.json and credentials.json'],
  ['LANYARD_STATE_DIR', 'where CI gates (--new) keep what they saw'],
  ['LANYARD_CACHE_DIR', "where start-up keeps V8's code cache"],
  ['LANYARD_COMPILE_CACHE=0', 'no code cache (also NODE_DISABLE_COMPILE_CACHE)'],
  ['LANYARD_INSECURE_STORAGE=1', 'credentials in a 0600 file, not the keychain'],
  ['LANYARD_KEYCHAIN=off', 'never use the OS keychain'],
  ['LANYARD_KEYCHAIN_TIMEOUT_MS', 'wait for the keychain (default 3000)'],
  ['LANYARD_LOCK_WAIT', "wait for another process's lock (default 60s)"],
  ['LANYARD_KEYCHAIN_PREFETCH=0', 'the launcher does not open the keychain early'],
  ['LANYARD_CONNECT_PREFETCH=0', 'the launcher does not connect to the API early'],
  ['LANYARD_PAGER, PAGER', 'pager of long output on a terminal (empty: none)'],
  ['LANYARD_BROWSER, BROWSER', 'command that opens sign-in URLs'],
  ['SSH_CONNECTION, SSH_TTY', 'ssh, no display: sign-ins open no browser'],
  ['DISPLAY, WAYLAND_DISPLAY', 'a display a browser may open on (also over ssh)'],
  ['LANYARD_PROMPT_DISABLED=1', 'never start a sign-in that needs a person'],
  ['LANYARD_EVENTS', 'ndjson: CI event lines anywhere; off: none'],
  ['CI', 'true or 1: CI event lines on stderr'],
  ['GITHUB_STEP_SUMMARY', 'file that ratelimit appends a summary to'],
  ['LANYARD_EMULATOR_URL', 'emulator steered by `lanyard emulator` verbs'],
  ['LANYARD_CA_FILE', 'PEM bundle of CAs added to the default trust'],
  ['LANYARD_SYSTEM_CA=1', 'also trust the OS store (where Node reads it)'],
  ['NODE_EXTRA_CA_CERTS', "(Node's) extra trusted CAs, PEM"],
  ['LANYARD_ALLOW_PLAIN_HTTP', 'host[:port],…: credentials over http:// (labs)'],
  ['LANYARD_PACING_URL', 'redis:// server a fleet paces through'],
  ['LANYARD_PACING_PASSWORD', "that server's password"],
  ['LANYARD_PACING_REQUIRED=1', 'exit 1 when the pacing server cannot be used'],
  ['LANYARD_PACING_TIMEOUT', 'longest wait for the pacing server (default 2s)'],
  ['LANYARD_PACING_LIMITS', 'content-creating limits if not 80/1m,500/1h'],
  ['LANYARD_PACING_MARGIN', 'pacing margin for latency and skew (default 1s)'],
  ['COLUMNS', 'width of human tables'],
];

/**
 * Variables read only to find a system default or for a child process, not
 * settings of Lanyard's own: the home and data directories, the pager's and
 * the keychain's own environment, Node's own options (NODE_OPTIONS: the
 * launcher leaves Node's warnings on when they ask for them).
 */
export const SYSTEM_ENVIRONMENT: readonly string[] = [
  'HOME',
  'USERPROFILE',
  'LOCALAPPDATA',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'PATH',
  'LESS',
  'LV',
  'DBUS_SESSION_BUS_ADDRESS',
  'NODE_DISABLE_COMPILE_CACHE',
  'NODE_OPTIONS',
];

/** The "Environment:" block of the root help. */
export function environmentHelp(): string {
  const width = Math.max(...ENVIRONMENT.map(([name]) => name.length)) + 2;
  const lines = ENVIRONMENT.map(([name, meaning]) => `  ${name.padEnd(width)}${meaning}`);
  return `\nEnvironment (docs/conventions.md has the details):\n${lines.join('\n')}\n`;
}
