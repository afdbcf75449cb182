/** One emulator world per test file, reset to its seed before every test. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startWorld, type World } from './harness.js';

export interface WorldRef {
  readonly world: World;
  /** Runs the CLI with `--profile emulator`. */
  run(args: string[], env?: Record<string, string>): ReturnType<World['run']>;
}

export function useEmulatorWorld(): WorldRef {
  let world: World | undefined;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await world?.stop();
  });
  beforeEach(async () => {
    await world!.admin('reset');
  });
  return {
    get world() {
      return world!;
    },
    run: (args, env = {}) => world!.run(['--profile', 'emulator', ...args], { env }),
  };
}
