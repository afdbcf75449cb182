import { createContext, type Context, type ContextPorts } from '../../src/cli/context.js';
import { Output, type OutputChoice } from '../../src/cli/output/output.js';
import { FakeClock } from './clock.js';
import type { TestIO } from './io.js';

/**
 * A context of a command test: the test's IO and ports (fakes), no config
 * directory, keychain or root options. Call run functions as `runX(ctx, …)`.
 * `output`: the run's output — an Output, or what to make one of on `io`
 * (`{ format: 'json' }` for `--json`, `'ndjson'` for `--ndjson`); default
 * human output to `io`. The context is frozen: nothing is written into it.
 */
export function contextOnFakes(io: TestIO, env: NodeJS.ProcessEnv, ports: ContextPorts, clock = new FakeClock(), output: Output | OutputChoice = {}): Context {
  return createContext({
    io,
    env,
    signal: new AbortController().signal,
    version: '0.0.0',
    globals: () => ({}),
    clock,
    ports,
    output: output instanceof Output ? output : new Output(io, output),
  });
}
