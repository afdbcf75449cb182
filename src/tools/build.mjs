// Builds dist/ with esbuild: one ESM bundle per entry, shared chunks, lazy
// command modules split out so start-up loads only what a command needs.
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
await rm(join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: {
    cli: 'src/cli/main.ts',
    emulator: 'src/emulator/server.ts',
    demo: 'src/tools/demo.ts',
  },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  sourcemap: false,
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: { __LANYARD_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
