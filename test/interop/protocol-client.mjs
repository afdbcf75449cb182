#!/usr/bin/env node
// The client command the context-protocol conformance suite runs
// (`conformance client --command "node test/interop/protocol-client.mjs"`):
// it appends the server URL and names the scenario in MCP_CONFORMANCE_SCENARIO,
// with scenario data (client ids, secrets, keys) in MCP_CONFORMANCE_CONTEXT.
// This adapter only turns that into `lanyard protocol request` (and, for the
// client-credentials and cross-app scenarios, a `lanyard auth login --server`
// first) invocations of the built CLI, the way a user would type them; every protocol decision is
// the CLI's. The browser is the e2e stand-in, which follows the authorization
// server's redirect back to the CLI's loopback listener.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
if (!serverUrl || !scenario) {
  process.stderr.write('usage: MCP_CONFORMANCE_SCENARIO=<name> protocol-client.mjs <server-url>\n');
  process.exit(2);
}

const home = mkdtempSync(join(tmpdir(), 'lanyard-conformance-'));
const env = {
  ...process.env,
  LANYARD_CONFIG_DIR: home,
  LANYARD_KEYCHAIN: 'off',
  LANYARD_INSECURE_STORAGE: '1',
  LANYARD_BROWSER: join(root, 'test', 'e2e', 'protocol-consent.mjs'),
  LANYARD_TEST_CONSENT: 'allow',
  NO_COLOR: '1',
};
// The URL the client-ID-metadata-document scenarios expect Lanyard to present.
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

const call = (method, params) => ['protocol', 'request', serverUrl, '--json', '--method', method, ...(params ? ['--params', JSON.stringify(params)] : [])];
/** `auth login --server` with these options: sign in once, store the token for the requests after it. */
const login = (...opts) => ['auth', 'login', '--server', serverUrl, ...opts];
const testTool = call('tools/call', { name: 'test-tool', arguments: {} });
/** Argument lists of the CLI runs for a scenario; they run in order and stop at the first failure. */
function runs() {
  if (scenario === 'initialize') return [['protocol', 'request', serverUrl, '--json']];
  if (scenario === 'tools_call') return [call('tools/call', { name: 'add_numbers', arguments: { a: 5, b: 3 } })];
  if (scenario === 'sse-retry') return [call('tools/call', { name: 'test_reconnection', arguments: {} })];
  if (scenario === 'elicitation-sep1034-client-defaults') {
    return [[...call('tools/call', { name: 'test_client_elicitation_defaults', arguments: {} }), '--elicitation', 'defaults']];
  }
  if (scenario === 'auth/client-credentials-basic') {
    env.LANYARD_CLIENT_SECRET = context.client_secret;
    return [[...call('tools/list'), '--client-credentials', '--client-id', context.client_id]];
  }
  if (scenario === 'auth/client-credentials-jwt') {
    const key = join(home, 'client-key.pem');
    writeFileSync(key, context.private_key_pem, { mode: 0o600 });
    return [login('--client-credentials', '--client-id', context.client_id, '--client-key', key), call('tools/list')];
  }
  if (scenario === 'auth/pre-registration') {
    env.LANYARD_CLIENT_SECRET = context.client_secret;
    return [[...call('tools/list'), '--client-id', context.client_id]];
  }
  // Enterprise-managed authorization (SEP-990) is cross-app access under the extension's name: the same options.
  if (scenario === 'auth/cross-app-access-complete-flow' || scenario === 'auth/enterprise-managed-authorization') {
    env.LANYARD_CLIENT_SECRET = context.client_secret;
    env.LANYARD_ID_TOKEN = context.idp_id_token;
    const idp = ['--client-id', context.client_id, '--idp-token-endpoint', context.idp_token_endpoint, '--idp-client-id', context.idp_client_id];
    return [login(...idp), call('tools/list'), testTool];
  }
  // Workload identity federation (SEP-1933): the platform's JWT in a file, as a Kubernetes or CI job has it.
  if (scenario === 'auth/wif-jwt-bearer') {
    const jwt = join(home, 'workload.jwt');
    writeFileSync(jwt, context.valid_jwt, { mode: 0o600 });
    return [login('--client-id', context.client_id, '--workload-token-file', jwt), call('tools/list'), testTool];
  }
  // Multi round-trip tool calls (SEP-2322): each tool once, answering the server's questions with the schema's defaults.
  if (scenario === 'sep-2322-client-request-state') {
    return ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type'].map((name) => [
      ...call('tools/call', { name, arguments: {} }),
      '--elicitation',
      'defaults',
    ]);
  }
  // Tool parameters the server wants mirrored into Mcp-Param-* headers (SEP-2243): values that need each encoding.
  if (scenario === 'http-custom-headers') {
    const args = {
      region: 'us-west1',
      priority: 42,
      verbose: false,
      debug: true,
      empty_val: '',
      method_val: 'GET',
      float_val: 1.5,
      non_ascii_val: 'Hello, 世界',
      whitespace_val: ' padded ',
      leading_space_val: ' lead',
      trailing_space_val: 'trail ',
      internal_space_val: 'a b c',
      control_char_val: 'bell\u0007',
      crlf_val: 'line1\r\nline2',
      tab_val: '\ttab',
      query: 'SELECT 1',
    };
    return [
      call('tools/list'),
      call('tools/call', { name: 'test_custom_headers', arguments: args }),
      call('tools/call', { name: 'test_custom_headers_null', arguments: { region: 'us-east1', verbose: null } }),
    ];
  }
  // One malformed tool definition among valid ones: list, then call the valid one.
  if (scenario === 'http-invalid-tool-headers') return [call('tools/list'), call('tools/call', { name: 'valid_tool', arguments: { region: 'us-west1' } })];
  // The tool's schema as `tools/list --json` prints it, handed back to the echo tool (as a user piping it through jq would).
  if (scenario === 'json-schema-2020-12-preservation') {
    return [
      call('tools/list'),
      (out) => {
        const tool = JSON.parse(out).result.tools.find((t) => t.name === 'json_schema_2020_12_tool');
        return call('tools/call', { name: 'json_schema_echo', arguments: { schema: tool.inputSchema } });
      },
    ];
  }
  if (scenario === 'json-schema-ref-no-deref') return [call('tools/list')];
  // Every other auth scenario: a user who lists the tools, then calls one.
  const cimd = ['--client-metadata-url', CIMD_URL];
  return [
    [...call('tools/list'), ...cimd],
    [...testTool, ...cimd],
  ];
}

let code = 0;
try {
  let out = '';
  for (const step of runs()) {
    // A step is an argument list, or a function of the previous run's standard output that returns one.
    const args = typeof step === 'function' ? step(out) : step;
    const argv = [join(root, 'bin', 'lanyard.js'), ...args];
    process.stderr.write(`$ lanyard ${argv.slice(1).join(' ')}\n`);
    const r = spawnSync(process.execPath, argv, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 60_000 });
    out = r.stdout ?? '';
    process.stdout.write(out);
    code = r.status ?? 1;
    if (code !== 0) break;
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exit(code);
