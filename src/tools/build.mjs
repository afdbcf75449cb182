// Builds dist/ with esbuild: one ESM bundle per entry, shared chunks, lazy
// command modules split out so start-up loads only what a command needs.
//
// The npm packages on the start-up path (commander, undici, conf and its
// validators, env-paths, chalk, ora, jose) are bundled in: resolving and
// reading a hundred small files from node_modules cost more than the command
// itself. Everything else stays external and is resolved from node_modules at
// run time - above all the native keychain binding (@napi-rs/keyring, an
// optional dependency), `open` (runs the xdg-open script shipped next to it)
// and the emulator's MIME/XML/TLS libraries.
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join, sep } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));

/** Packages bundled into dist/ (with their own dependencies). */
const BUNDLED = new Set(['commander', 'undici', 'conf', 'env-paths', 'chalk', 'ora', 'jose']);

const packageName = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** Marks a bare import from our sources external unless its package is in BUNDLED. */
const externals = {
  name: 'lanyard-externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path === 'node:assert' && /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer)) {
        return { path: join(root, 'src', 'tools', 'lazy-assert.cjs') };
      }
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      // Only the parts of undici Lanyard uses (see undici-slim.mjs).
      if (args.path === 'undici') return { path: join(root, 'src', 'tools', 'undici-slim.mjs') };
      if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined; // inside a bundled package
      return BUNDLED.has(packageName(args.path)) ? undefined : { path: args.path, external: true };
    });
  },
};

/**
 * Requires that bundled packages make at load time for features Lanyard does
 * not use, deferred to first use: commander's node:child_process (≈ 3 ms;
 * executable subcommands) and undici's HTTP/2 client, which loads node:http2
 * and node:tls (≈ 9 ms; Lanyard's agents speak HTTP/1.1). Each patch must
 * match the package's source exactly, or the build fails.
 */
const LAZY_REQUIRES = [
  {
    file: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    eager: "const childProcess = require('node:child_process');",
    lazy: "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };",
  },
  {
    file: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    eager: "const connectH2 = require('./client-h2.js')",
    lazy: "const connectH2 = (...a) => require('./client-h2.js')(...a)",
  },
];
const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    for (const { file, eager, lazy } of LAZY_REQUIRES) {
      b.onLoad({ filter: file }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        if (!text.includes(eager)) throw new Error(`${args.path}: expected "${eager}" (the package changed; update LAZY_REQUIRES in build.mjs)`);
        return { contents: text.replace(eager, lazy), loader: 'js' };
      });
    }
  },
};

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
  plugins: [externals, lazyRequires],
  // Bundled CommonJS (commander, undici, ajv) calls require() for Node's
  // built-ins; an ES module has none, so every output file gets one.
  banner: { js: "import { createRequire as __lanyardCreateRequire } from 'node:module'; const require = __lanyardCreateRequire(import.meta.url);" },
  sourcemap: false,
  minifySyntax: true,
  minifyWhitespace: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: { __LANYARD_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
