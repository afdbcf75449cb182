/** The health service of the emulator (routes added by its issue). */
import type { EmulatorEnv, EmulatorService } from '../../service.js';

export function createHealthService(_env: EmulatorEnv): EmulatorService {
  return {
    name: 'health',
    register() {},
  };
}
