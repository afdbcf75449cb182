#!/usr/bin/env node
// Tiny shim. `lanyard --version` is answered here, without loading the CLI
// bundle (start-up target: within 1.15x of `node -e 0`); everything else turns
// the compile cache on and runs the bundled CLI.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  const { default: module } = await import('node:module');
  module.enableCompileCache?.();
  const { main } = await import('../dist/cli.js');
  await main(process.argv);
}
