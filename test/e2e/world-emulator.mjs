// The emulator of a test world (harness.ts startWorld), in a worker thread of
// the test's process: the module `lanyard emulator start` runs
// (dist/lib/emulator-server.js), loaded by Node, serving over real HTTP on
// its own event loop, so a test that blocks its own (spawnSync: a shell
// script, a pseudo-terminal, a D-Bus session running the CLI) does not stall
// the CLI's requests. Posts { url, profile } once listening (the profile
// "emulator" as `emulator start` writes it), or { error }; on 'stop', closes
// and posts 'stopped'.
import { parentPort, workerData } from 'node:worker_threads';

try {
  const { startEmulator } = await import(new URL('../../dist/lib/emulator-server.js', import.meta.url).href);
  const emu = await startEmulator(workerData);
  const profile = {};
  for (const s of emu.services) Object.assign(profile, s.info?.().profile ?? {});
  parentPort.on('message', async (m) => {
    if (m !== 'stop') return;
    await emu.close();
    parentPort.postMessage('stopped');
    parentPort.close();
  });
  parentPort.postMessage({ url: emu.url, profile });
} catch (err) {
  parentPort.postMessage({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
}
