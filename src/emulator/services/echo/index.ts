/** The echo service of the emulator (routes added by its issue). */
import type { EmulatorEnv, EmulatorService } from '../../service.js';

export function createEchoService(_env: EmulatorEnv): EmulatorService {
  return {
    name: 'echo',
    register() {},
  };
}
