#!/usr/bin/env node
// Tiny shim. `lanyard --version` is answered here, without loading the CLI
// bundle (start-up target: within 1.15x of `node -e 0`); everything else turns
// the compile cache on (Node >= 22.1) and runs the bundled CLI.
import { readFileSync, writeSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // writeSync: building process.stdout costs a few ms, more than the whole answer.
  try {
    writeSync(1, JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
  } catch (err) {
    if (err?.code !== 'EPIPE') throw err; // the reader went away: nothing to say
  }
} else {
  const [{ default: module }, { setFlagsFromString }] = await Promise.all([import('node:module'), import('node:v8')]);
  module.enableCompileCache?.();
  // undici parses HTTP with a WebAssembly build of llhttp. V8 compiles it
  // with its baseline compiler (Liftoff) and then optimises it with TurboFan
  // on background threads, which the process waits for before it can exit:
  // ~0.2 s after the output of a one-request command. Liftoff code is plenty
  // for parsing response heads and chunk framing.
  setFlagsFromString('--liftoff-only');
  const { main } = await import('../dist/cli.js');
  await main(process.argv);
}
