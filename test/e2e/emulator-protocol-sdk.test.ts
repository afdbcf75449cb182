/**
 * The protocol's own TypeScript SDK (@modelcontextprotocol/sdk) as a client of
 * the emulator's protocol server, started in-process with startEmulator():
 * the SDK discovers the authorization server, gets a token with the client
 * credentials grant (the seeded `ctx-service` client), lists and calls tools.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator({}, { resetEach: false });

function serviceClient() {
  const c = ref.emu.fixtures.protocol.clients.find((x) => x.grant_types.includes('client_credentials'))!;
  return new ClientCredentialsProvider({ clientId: c.client_id, clientSecret: c.client_secret!, expectedIssuer: ref.emu.urls.protocol.authorizationServer });
}

describe('the protocol SDK client against the emulator', () => {
  it('connects with the client credentials grant, lists the tools and calls one', async () => {
    const client = new Client({ name: 'sdk-interop', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(ref.emu.urls.protocol.server), { authProvider: serviceClient() });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('echo');
      const r = await client.callTool({ name: 'echo', arguments: { text: 'hello from the SDK' } });
      expect(JSON.stringify(r.content)).toContain('hello from the SDK');
    } finally {
      await client.close();
    }
  });

  it('without credentials the SDK gets the 401 and cannot connect', async () => {
    const client = new Client({ name: 'sdk-interop', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(ref.emu.urls.protocol.server)))).rejects.toThrow(/401|Unauthorized/i);
  });
});
