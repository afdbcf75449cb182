#!/usr/bin/env node
// Tiny shim. `lanyard --version` is answered here, without loading the CLI
// bundle (start-up target: within 1.15x of `node -e 0`); everything else turns
// the compile cache on (Node >= 22.1) and runs the bundled CLI.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  const [{ default: module }, { setFlagsFromString }] = await Promise.all([import('node:module'), import('node:v8')]);
  module.enableCompileCache?.();
  // undici parses HTTP with a WebAssembly build of llhttp. Compiled eagerly,
  // V8 optimises the whole module on background threads and the process
  // cannot exit before they finish (~200 ms after the last byte of a 50 ms
  // command); lazily, only the functions that run are compiled.
  setFlagsFromString('--wasm-lazy-compilation');
  const { main } = await import('../dist/cli.js');
  await main(process.argv);
}
