// Device-flow sign-in with your own prompt, then one API call with the token.
// Runs against an emulator it starts itself; for a real code host, use its
// web URL, API URL and your OAuth app's client id instead.
import { fetchUser, HttpClient, runDeviceFlow, systemClock } from 'lanyard-cli';
import { startEmulator } from 'lanyard-cli/emulator';

const emulator = await startEmulator();
const http = new HttpClient({ clock: systemClock, userAgent: 'device-flow-example/1.0' });
try {
  // An emulator knob, to keep the example short: poll every second rather than every five.
  await emulator.admin('hosting', 'device-policy', { interval: 1 });

  const token = await runDeviceFlow({
    http,
    clock: systemClock,
    webUrl: emulator.urls.hosting.web,
    clientId: emulator.fixtures.hosting.app.clientId,
    scopes: ['repo', 'read:org'],
    // The prompt is yours: print it, show a dialog, send it to a chat. Polling starts when it resolves.
    onCode: async ({ userCode, verificationUri, expiresIn }) => {
      console.log(`Open ${verificationUri} and enter ${userCode} (valid for ${Math.round(expiresIn / 60)} minutes)`);
      // Here the emulator plays the user and approves the code.
      await emulator.admin('hosting', 'device-approve', { user_code: userCode, login: 'mona' });
    },
    // Progress while polling: pending answers, slow_down, retried network errors.
    onEvent: (event) => {
      if (event.kind === 'slow_down') console.log(`the server asks to poll every ${event.intervalSec} s`);
    },
  });

  const user = await fetchUser(http, emulator.urls.hosting.api, { scheme: 'bearer', token: token.accessToken });
  console.log(`signed in as ${user.login}; scopes: ${token.scopes.join(', ')}`);
} finally {
  await http.close();
  await emulator.stop();
}
