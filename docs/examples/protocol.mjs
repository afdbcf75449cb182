// The context-protocol client: one call (initialize, then tools/list), signing
// in with the client-credentials grant on the way when the server answers 401.
import { callProtocolServer, HttpClient, MemoryCredentialStore, ProtocolCredentials, systemClock } from 'lanyard-cli';
import { startEmulator } from 'lanyard-cli/emulator';

const emulator = await startEmulator();
const http = new HttpClient({ clock: systemClock, userAgent: 'protocol-example/1.0' });
try {
  const deps = {
    http,
    clock: systemClock,
    // Tokens and the client identity are kept here; a FileCredentialStore or the keychain keeps them across runs.
    credentials: new ProtocolCredentials(new MemoryCredentialStore()),
    clientSecret: async () => 'ctx-service-secret',
    // Only the authorization-code grant shows a URL to a person; the client-credentials grant needs none.
    presentAuthorizationUrl: async (url) => console.log(`sign in at ${url}`),
    loopbackTimeoutMs: 120_000,
    notify: (line) => console.log(`note: ${line}`),
  };
  const result = await callProtocolServer(deps, {
    serverUrl: emulator.urls.protocol.server,
    method: 'tools/list',
    clientId: 'ctx-service',
    clientCredentials: true,
    scopes: 'tools:read',
    clientInfo: { name: 'protocol-example', version: '1.0.0' },
  });
  console.log(`signed in on the way: ${result.authorized}`);
  console.log(`tools: ${result.response.result.tools.map((t) => t.name).join(', ')}`);
} finally {
  await http.close();
  await emulator.stop();
}
