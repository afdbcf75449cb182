/**
 * One in-process emulator per test file, optionally reset to its seed before
 * every test: the built `lanyard-cli/emulator` (dist/lib/emulator.js), as a
 * program importing the package gets it, loaded by Node rather than through
 * vitest's transform of the sources (test/vitest.config.ts externalises
 * dist/lib/: about a second less per file on Node 20).
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { RunningEmulator, StartEmulatorOptions } from '../../src/emulator/index.js';

/** Not imported by name: dist/ may not be built when tsc runs. */
const EMULATOR_MODULE = new URL('../../dist/lib/emulator.js', import.meta.url).href;

export function useInProcessEmulator(options: StartEmulatorOptions = {}, o: { resetEach?: boolean } = {}): { readonly emu: RunningEmulator } {
  let emu: RunningEmulator | undefined;
  beforeAll(async () => {
    const { startEmulator } = (await import(EMULATOR_MODULE)) as typeof import('../../src/emulator/index.js');
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
