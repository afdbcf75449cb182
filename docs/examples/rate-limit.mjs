// Calling the code host's API under the rate-limit policy: read the budget,
// fail fast on an exhausted budget (the default), or wait for the reset.
import { defaultRateLimitPolicy, fetchRateLimit, fetchUser, HttpClient, RateLimitError, systemClock } from 'lanyard-cli';
import { startEmulator } from 'lanyard-cli/emulator';

const emulator = await startEmulator();
const apiUrl = emulator.urls.hosting.api;
const credential = { scheme: 'bearer', token: emulator.fixtures.hosting.personalToken };

// The default policy: a refusal for an exhausted budget is a RateLimitError at once.
const failFast = new HttpClient({ clock: systemClock, userAgent: 'rate-limit-example/1.0' });
// A policy that waits for the reset (never longer than a minute) and says so before it sleeps.
const patient = new HttpClient({
  clock: systemClock,
  userAgent: 'rate-limit-example/1.0',
  rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true, maxWaitMs: 60_000 },
  onRateLimitWait: ({ kind, waitMs }) => console.log(`${kind} rate limit: waiting ${Math.ceil(waitMs / 1000)} s for the reset`),
});
try {
  const { resources } = await fetchRateLimit(failFast, apiUrl, credential);
  console.log(`core: ${resources.core.remaining} of ${resources.core.limit} left`);

  // Spend the budget (an emulator knob): no requests left until 2 s from now.
  await emulator.budget({ remaining: 0, resetInSeconds: 2 });

  try {
    await fetchUser(failFast, apiUrl, credential);
  } catch (err) {
    if (!(err instanceof RateLimitError)) throw err;
    console.log(`refused: ${err.message}`);
  }

  const user = await fetchUser(patient, apiUrl, credential);
  console.log(`after the reset: ${user.login}`);
} finally {
  await failFast.close();
  await patient.close();
  await emulator.stop();
}
