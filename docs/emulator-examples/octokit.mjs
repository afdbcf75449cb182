// Octokit against the emulator: REST with a seeded token, a GraphQL mutation REST then lists, the device flow.
import { Octokit } from '@octokit/rest';
import { createOAuthDeviceAuth } from '@octokit/auth-oauth-device';
import { startEmulator } from 'lanyard-cli/emulator';

const emu = await startEmulator();
try {
  const octokit = new Octokit({ auth: emu.fixtures.hosting.personalToken, baseUrl: emu.urls.hosting.api });
  const { data: me, headers } = await octokit.rest.users.getAuthenticated();
  console.log(`signed in as ${me.login}; scopes: ${headers['x-oauth-scopes']}`);

  // The query API: an issue opened by a mutation is the REST API's issue too.
  const { repository } = await octokit.graphql('query { repository(owner: "mona", name: "hello-world") { id } }');
  const mutation = 'mutation($r: ID!, $t: String!) { createIssue(input: {repositoryId: $r, title: $t}) { issue { number } } }';
  const { createIssue } = await octokit.graphql(mutation, { r: repository.id, t: 'Hello from GraphQL' });
  const { data: issues } = await octokit.rest.issues.listForRepo({ owner: 'mona', repo: 'hello-world' });
  console.log(`issue #${createIssue.issue.number} made by a mutation; REST lists: ${issues.map((i) => i.title).join(', ')}`);

  // Device flow: the "user" approves through the admin API instead of a browser.
  await emu.admin('hosting', 'device-policy', { interval: 0 });
  const auth = createOAuthDeviceAuth({
    clientType: 'oauth-app',
    clientId: emu.fixtures.hosting.app.clientId,
    scopes: ['repo'],
    request: new Octokit({ baseUrl: emu.urls.hosting.api }).request,
    onVerification: (v) => emu.admin('hosting', 'device-approve', { user_code: v.user_code }),
  });
  const { token } = await auth({ type: 'oauth' });
  const viaDevice = new Octokit({ auth: token, baseUrl: emu.urls.hosting.api });
  console.log(`device flow token acts for ${(await viaDevice.rest.users.getAuthenticated()).data.login}`);
} finally {
  await emu.stop();
}
