// The official service-health SDK against the emulator (HTTPS: the SDK sends bearer tokens over TLS only).
import { Agent } from 'node:https';
import { MicrosoftResourceHealth } from '@azure/arm-resourcehealth';
import { startEmulator } from 'lanyard-cli/emulator';

const emu = await startEmulator({ tls: true });
const agent = new Agent({ ca: emu.tls.ca }); // or run with NODE_EXTRA_CA_CERTS=<emu.tls.caFile>
try {
  const credential = { getToken: async () => ({ token: emu.fixtures.health.token, expiresOnTimestamp: Date.now() + 3_600_000 }) };
  const client = new MicrosoftResourceHealth(credential, emu.fixtures.health.subscriptionId, {
    endpoint: emu.urls.health.management, // api-version: the SDK's default, 2022-10-01
    additionalPolicies: [{ position: 'perCall', policy: { name: 'emulatorCa', sendRequest: (req, next) => ((req.agent = agent), next(req)) } }],
  });
  let n = 0;
  let first;
  for await (const event of client.eventsOperations.listBySubscriptionId()) {
    first ??= event;
    n++;
  }
  console.log(`${n} events in the last 3 days`);
  const details = await client.eventOperations.fetchDetailsBySubscriptionIdAndTrackingId(first.name);
  console.log(`${details.name}: ${details.title}`);
} finally {
  agent.destroy();
  await emu.stop();
}
