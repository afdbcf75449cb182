// Builds dist/ with esbuild: the CLI as one CommonJS bundle (dist/cli.cjs,
// compiled by bin/lanyard.js with a V8 code cache), the emulator as a second
// CommonJS file the CLI requires for `emulator start`, the library (the
// package's `exports`: dist/lib/, ES modules with rolled-up declarations and
// the API report check, see buildLibrary()), and the demo as an ES module
// outside dist/ (build/demo.js: the repository's quick start, not published).
//
// `--update-api` (npm run api:update) accepts a changed public API: it writes
// the new report to docs/api-report/ instead of failing the build.
//
// The npm packages on the start-up path (commander, conf and its validators,
// env-paths, chalk, ora, jose, content-disposition, get-east-asian-width (table
// widths), and the few valibot
// functions the wire types use, tree-shaken) are bundled in: resolving
// and reading a hundred small files from node_modules cost more than the
// command itself. Each is pinned to an exact version in package.json, as
// bundled code must be. Everything else stays external and is resolved from
// node_modules at run time - above all the native keychain binding
// (@napi-rs/keyring, an optional dependency), `open` (runs the xdg-open script
// shipped next to it) and the emulator's HTTP/MIME/XML/TLS libraries. The
// build bundles packages as they are: it never rewrites their source.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative, sep } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));

/** Packages bundled into dist/ (with their own dependencies). */
const BUNDLED = new Set(['commander', 'conf', 'env-paths', 'chalk', 'ora', 'jose', 'content-disposition', 'valibot', 'get-east-asian-width']);

/**
 * Bundled packages built into dist/vendor/<name>.cjs instead of the CLI (see
 * the externals plugin), and what each file exports: the package's default
 * export, or all of its named exports.
 */
const VENDORED_EXPORTS = { conf: 'default', ora: 'default', jose: 'named' };
const VENDORED = Object.keys(VENDORED_EXPORTS);

/** The committed API reports of the library's entry points (API Extractor). */
const API_REPORTS = join(root, 'docs', 'api-report');

/** Where tsc writes the library's declarations (incrementally) before API Extractor rolls them up (see tsconfig.lib.json). */
const DTS = join(root, 'build', 'types');

/** The library's entry points: the package's `exports` (package.json) and their API reports (docs/api-report/). */
const LIBRARY = [
  { specifier: 'lanyard-cli', source: 'src/core/index.ts', name: 'index', report: 'lanyard-cli' },
  { specifier: 'lanyard-cli/emulator', source: 'src/emulator/index.ts', name: 'emulator', report: 'lanyard-cli-emulator' },
];

const packageName = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** Marks a bare import from our sources external unless its package is in BUNDLED. */
const externals = {
  name: 'lanyard-externals',
  setup(b) {
    // The CLI loads the emulator (`lanyard emulator start`) from the
    // library's build, dist/lib/emulator-server.js (an ES module, through
    // require(esm)): half the code, needed by one command, shipped once.
    b.onResolve({ filter: /[\\/]emulator[\\/]server\.js$/ }, (args) =>
      b.initialOptions.format === 'cjs' && args.importer.includes(`${sep}src${sep}cli${sep}`)
        ? { path: './lib/emulator-server.js', external: true }
        : undefined,
    );
    // Packages only some runs need (conf: config writes; ora: spinners on a
    // terminal; jose: minting a service account's JWT) sit in dist/vendor/
    // rather than in the code-cached CLI: half its size, read by every
    // command otherwise.
    b.onResolve({ filter: new RegExp(`^(${VENDORED.join('|')})$`) }, (args) =>
      b.initialOptions.format === 'cjs' && /[\\/]src[\\/](cli|core)[\\/]/.test(args.importer)
        ? { path: `./vendor/${args.path}.cjs`, external: true }
        : undefined,
    );
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      // commander requires node:child_process at load time (≈ 3 ms) for
      // executable subcommands, which Lanyard does not have: it gets a module
      // of ours that loads the real one on first use (see lazy-child-process.cjs).
      if (args.path === 'node:child_process' && /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)) {
        return { path: join(root, 'src', 'tools', 'lazy-child-process.cjs') };
      }
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined; // inside a bundled package
      return BUNDLED.has(packageName(args.path)) ? undefined : { path: args.path, external: true };
    });
  },
};

await rm(join(root, 'dist'), { recursive: true, force: true });
await rm(join(root, 'build', 'demo.js'), { force: true });

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  plugins: [externals],
  sourcemap: false,
  minifySyntax: true,
  minifyWhitespace: true,
  // ASCII output (non-ASCII escaped): bin/lanyard.js reads the CLI as latin1,
  // the cheapest decoding, which is exact only for ASCII.
  charset: 'ascii',
  define: { __LANYARD_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
};

// The CLI: one CommonJS file. bin/lanyard.js compiles it with vm.Script and a
// V8 code cache (Node 20 has no module.enableCompileCache, and a code cache
// exists only for scripts, not ES modules): start-up then skips parsing and
// compiling what the command ran last time. Lazy `import()`s of command
// modules become lazily run closures in the same file.
await build({
  ...common,
  entryPoints: { cli: 'src/cli/main.ts' },
  outfile: 'dist/cli.cjs',
  format: 'cjs',
  // Short local names too: every command reads the whole file before it
  // runs (≈ 1.5 ms per 100 kB here), and the names are seen nowhere but in
  // --debug stack traces. The library (dist/lib/) keeps its names.
  minifyIdentifiers: true,
  // The file is one function expression, Node's CommonJS wrapper written out:
  // bin/lanyard.js compiles it as a vm.Script without first copying a
  // megabyte into a wrapped string.
  banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
  footer: { js: '})' },
  // Every import() becomes require(): a script compiled with a code cache
  // cannot import() on Node 20 (the callback is lost with the cache, and the
  // alternatives need --experimental-vm-modules). ES-module-only packages
  // (`open`) load through require(esm), on by default since Node 20.19.
  supported: { 'dynamic-import': false },
  // Code that must know that its import() is a require() (keychain-binding.ts).
  define: { ...common.define, __LANYARD_IMPORT_IS_REQUIRE__: 'true' },
  // The bundled packages' licence comments go to dist/cli.cjs.LEGAL.txt (they hold non-ASCII names).
  legalComments: 'external',
});
const cli = await readFile(join(root, 'dist', 'cli.cjs'));
const nonAscii = cli.findIndex((b) => b > 0x7f);
if (nonAscii >= 0) throw new Error(`dist/cli.cjs has a non-ASCII byte at ${nonAscii}; bin/lanyard.js reads it as latin1`);
// The build id ends the file: bin/lanyard.js keys the code cache by it, so a
// cache is never offered to another build (V8 checks only the source length).
const buildId = createHash('sha256').update(cli).digest('hex').slice(0, 16);
await writeFile(join(root, 'dist', 'cli.cjs'), Buffer.concat([cli, Buffer.from(`//# lanyard-build=${buildId}\n`)]));

// The root help as commander renders it to a pipe (80 columns, no colour),
// which bin/lanyard.js prints for `lanyard --help` to anything but a terminal
// without loading the CLI (test/e2e/help.test.ts compares the two). dist/ was
// emptied above, so this run goes through commander.
const rootHelp = execFileSync(process.execPath, [join(root, 'bin', 'lanyard.js'), '--help'], {
  env: { PATH: process.env.PATH ?? '', LANYARD_COMPILE_CACHE: '0', LANYARD_CONFIG_DIR: join(root, 'build', 'no-config') },
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (!rootHelp.toString('utf8').startsWith('Usage: lanyard ')) throw new Error('the root help did not render');
await writeFile(join(root, 'dist', 'root-help.txt'), rootHelp);
await buildTerminalRootHelp(rootHelp.toString('utf8'));

// dist/vendor/<package>.cjs (see the externals plugin). The CLI's
// `await import('conf')` is a require() whose exports become the default
// export, so such a file exports the package's default export itself; a
// package used by its named exports (jose) exports them all.
for (const [name, kind] of Object.entries(VENDORED_EXPORTS)) {
  const contents = kind === 'default' ? `module.exports = require('${name}').default;` : `module.exports = require('${name}');`;
  await build({
    ...common,
    stdin: { contents, resolveDir: root, sourcefile: `vendor-${name}.cjs`, loader: 'js' },
    outfile: `dist/vendor/${name}.cjs`,
    format: 'cjs',
    legalComments: 'external',
  });
}

// What bin/lanyard.js starts before it loads the CLI, each small, so it costs
// less to load than the waiting it overlaps: the keychain's opening
// (src/cli/keychain-prefetch.ts) and the API's TLS connection for `lanyard
// api` (src/cli/connection-prefetch.ts: the config reading and profile
// selection are the CLI's own modules). The same modules are in the CLI too;
// they share data, never classes.
for (const name of ['keychain-prefetch', 'connection-prefetch']) {
  await build({
    ...common,
    entryPoints: { [name]: `src/cli/${name}.ts` },
    outfile: `dist/${name}.cjs`,
    format: 'cjs',
    supported: { 'dynamic-import': false },
    define: { ...common.define, __LANYARD_IMPORT_IS_REQUIRE__: 'true' },
  });
}
// bin/lanyard.js compiles the keychain's prefetch with a V8 code cache too,
// keyed as the CLI's is by a hash of the file that ends it.
const keychainPrefetch = await readFile(join(root, 'dist', 'keychain-prefetch.cjs'));
const keychainPrefetchId = createHash('sha256').update(keychainPrefetch).digest('hex').slice(0, 16);
await writeFile(join(root, 'dist', 'keychain-prefetch.cjs'), Buffer.concat([keychainPrefetch, Buffer.from(`//# lanyard-build=${keychainPrefetchId}\n`)]));

// The demo (`npm run demo`), a plain ES module with its own copy of the emulator.
// It lives in build/, not dist/: the package publishes dist/, and only the
// repository's quick start runs the demo.
await build({
  ...common,
  entryPoints: { demo: 'src/tools/demo.ts' },
  outfile: 'build/demo.js',
  format: 'esm',
  // Bundled CommonJS calls require() for Node's built-ins; an ES module has none.
  banner: { js: "import { createRequire as __lanyardCreateRequire } from 'node:module'; const require = __lanyardCreateRequire(import.meta.url);" },
});

await buildLibrary();

/**
 * The root help at a terminal's width without the CLI (src/cli/output/root-help.ts):
 * dist/root-help.json, the help's lines with the parts commander wraps left
 * unwrapped (recorded from the root's tree as `lanyard --help` declares it, by
 * a throwaway bundle in build/), and dist/root-help.cjs, which wraps them with
 * commander's own Help class (its lib/help.js alone: the package's entry
 * would bring the whole command tree). Rendered at 80 columns, the layout
 * must give back exactly the text commander printed above.
 */
async function buildTerminalRootHelp(expected) {
  const recorder = join(root, 'build', 'root-help-layout.cjs');
  await build({
    ...common,
    stdin: {
      contents: [
        "import { buildProgram } from './src/cli/program.ts';",
        "import { recordRootHelp } from './src/cli/output/root-help.ts';",
        // The root help's tree (`shallow`, as for `lanyard --help`) only declares commands: nothing asks the context.
        "process.stdout.write(JSON.stringify(recordRootHelp(buildProgram({}, 'shallow'))));",
      ].join('\n'),
      resolveDir: root,
      sourcefile: 'root-help-layout.ts',
      loader: 'ts',
    },
    outfile: recorder,
    format: 'cjs',
    supported: { 'dynamic-import': false },
  });
  const layout = execFileSync(process.execPath, [recorder], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  await rm(recorder, { force: true });
  const helpJs = join(dirname(createRequire(import.meta.url).resolve('commander')), 'lib', 'help.js');
  await build({
    ...common,
    entryPoints: { 'root-help': 'src/cli/output/root-help.ts' },
    outfile: 'dist/root-help.cjs',
    format: 'cjs',
    minifyIdentifiers: true,
    plugins: [{ name: 'commander-help-only', setup: (b) => b.onResolve({ filter: /^commander$/ }, () => ({ path: helpJs })) }],
  });
  // The layout opens with the hash of itself and its renderer: bin/lanyard.js keys the texts it keeps per width by it.
  const renderer = await readFile(join(root, 'dist', 'root-help.cjs'));
  const stamp = createHash('sha256').update(layout).update(renderer).digest('hex').slice(0, 16);
  await writeFile(join(root, 'dist', 'root-help.json'), `{"build":"${stamp}",${layout.slice(1)}`);
  const { renderRootHelp } = createRequire(import.meta.url)(join(root, 'dist', 'root-help.cjs'));
  if (renderRootHelp(JSON.parse(layout), 80) !== expected)
    throw new Error('dist/root-help.json rendered at 80 columns differs from the root help commander printed');
}

/**
 * The library: `lanyard-cli` (src/core/index.ts) and `lanyard-cli/emulator`
 * (src/emulator/index.ts) as ES modules in dist/lib/ (code both share in
 * dist/lib/chunks/), every npm package left to the user's node_modules, so a
 * program that imports Lanyard shares its dependencies rather than a bundled
 * copy. Declarations: tsc emits them (incrementally, into build/types/),
 * API Extractor rolls each entry point's up into one .d.ts beside its module
 * and compares the public surface with the committed report in docs/api-report/: a change
 * fails the build until `npm run api:update` accepts it.
 */
async function buildLibrary() {
  await bundleLibrary();
  const require = createRequire(import.meta.url);
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.lib.json')], { stdio: 'inherit' });
  const { Extractor, ExtractorConfig } = await import('@microsoft/api-extractor');
  const update = process.argv.includes('--update-api');
  const problems = [];
  for (const l of LIBRARY) problems.push(...checkApiReport(Extractor, ExtractorConfig.prepare(extractorConfig(l)), l, update));
  if (problems.length) {
    for (const p of problems) console.error(`build: ${p}`);
    process.exitCode = 1;
  }
}

/** The library's modules: its entry points and the emulator's host, with the chunks they share. */
async function bundleLibrary() {
  await build({
    absWorkingDir: root,
    // Plus the emulator's host (src/emulator/server.ts), which the CLI's
    // `emulator start` requires (see the externals plugin): not a public
    // entry point (no `exports`, no API report), and sharing its chunks with
    // `lanyard-cli/emulator`.
    entryPoints: [...LIBRARY.map((l) => ({ in: l.source, out: l.name })), { in: 'src/emulator/server.ts', out: 'emulator-server' }],
    outdir: 'dist/lib',
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    packages: 'external',
    sourcemap: false,
    logLevel: 'warning',
  });
}

/** API Extractor's configuration of one entry point: its rolled-up .d.ts and its report in docs/api-report/. */
function extractorConfig(l) {
  return {
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(DTS, l.source.replace(/^src\//, '').replace(/\.ts$/, '.d.ts')),
      compiler: { tsconfigFilePath: join(root, 'tsconfig.lib.json') },
      apiReport: { enabled: true, reportFileName: l.report, reportFolder: API_REPORTS, reportTempFolder: join(DTS, 'api') },
      docModel: { enabled: false },
      dtsRollup: { enabled: true, untrimmedFilePath: join(root, 'dist', 'lib', `${l.name}.d.ts`) },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        extractorMessageReporting: {
          default: { logLevel: 'error' },
          // Release tags (@public/@beta) are not used: everything exported is public.
          'ae-missing-release-tag': { logLevel: 'none' },
          // Doc comments are checked by TypeDoc (npm run docs); the report marks what has none.
          'ae-undocumented': { logLevel: 'none' },
          // A type the surface uses without exporting it (e.g. the wire types' value lists) is declared in the
          // rolled-up .d.ts and listed in the report, where a new one shows up in review.
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: join(API_REPORTS, `${l.report}.api.json`),
    packageJsonFullPath: join(root, 'package.json'),
  };
}

/** Rolls up one entry point's declarations and compares its report; returns what is wrong (with `update`: writes the new report). */
function checkApiReport(Extractor, config, l, update) {
  const problems = [];
  const messages = [];
  const result = Extractor.invoke(config, {
    localBuild: update,
    messageCallback: (m) => {
      m.handled = true;
      if (m.logLevel === 'error' || m.logLevel === 'warning')
        messages.push(`${m.sourceFilePath ? `${relative(root, m.sourceFilePath)}:${m.sourceFileLine}: ` : ''}${m.text} (${m.messageId})`);
    },
  });
  if (result.apiReportChanged && !update)
    problems.push(
      `the public API of ${l.specifier} changed: compare docs/api-report/${l.report}.api.md with ${relative(root, join(DTS, 'api', `${l.report}.api.md`))}; if the change is meant, run \`npm run api:update\` and commit docs/api-report/`,
    );
  else if (result.apiReportChanged) console.log(`build: docs/api-report/${l.report}.api.md updated (${l.specifier})`);
  problems.push(...messages.filter((m) => !/\(console-api-report-/.test(m)));
  return problems;
}
