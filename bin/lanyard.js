#!/usr/bin/env node
// Tiny shim: compile cache on, then the bundled CLI.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/cli.js');
await main(process.argv);
