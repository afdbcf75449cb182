// The protocol's TypeScript SDK against the emulator's protocol server (client credentials grant).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { startEmulator } from 'lanyard-cli/emulator';

const emu = await startEmulator();
try {
  const service = emu.fixtures.protocol.clients.find((c) => c.grant_types.includes('client_credentials'));
  const authProvider = new ClientCredentialsProvider({
    clientId: service.client_id,
    clientSecret: service.client_secret,
    expectedIssuer: emu.urls.protocol.authorizationServer,
  });
  const client = new Client({ name: 'example', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(emu.urls.protocol.server), { authProvider }));
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);
  const r = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  console.log(`echo: ${r.content[0].text}`);
  await client.close();
} finally {
  await emu.stop();
}
