import { createContext, type Context, type ContextPorts } from '../../src/cli/context.js';
import { FakeClock } from './clock.js';
import type { TestIO } from './io.js';

/** A context of a command test: the test's IO and ports (fakes), no config directory, keychain or root options. */
export function contextOnFakes(io: TestIO, env: NodeJS.ProcessEnv, ports: ContextPorts, clock = new FakeClock()): Context {
  return createContext({ io, env, signal: new AbortController().signal, version: '0.0.0', globals: () => ({}), clock, ports });
}
