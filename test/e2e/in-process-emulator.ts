/** One in-process emulator (startEmulator) per test file, optionally reset to its seed before every test. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../src/emulator/index.js';

export function useInProcessEmulator(options: StartEmulatorOptions = {}, o: { resetEach?: boolean } = {}): { readonly emu: RunningEmulator } {
  let emu: RunningEmulator | undefined;
  beforeAll(async () => {
    emu = await startEmulator(options);
  });
  afterAll(async () => {
    await emu?.stop();
  });
  if (o.resetEach !== false)
    beforeEach(async () => {
      await emu!.reset();
    });
  return {
    get emu() {
      return emu!;
    },
  };
}
