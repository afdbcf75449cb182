// `npm run build:exe`: Lanyard as single-file executables (Node's single
// executable applications) for Linux x64, Linux arm64 and Windows x64, in
// dist/exe/ with a SHA256SUMS file. Run after `npm run build` (the script
// does): the executables hold dist/ as built.
//
// Each executable is the registry's `node-<platform>` binary of one Node
// release (NODE_VERSION, pinned with its integrity below), with a SEA blob
// injected by postject. The blob's main script is src/cli/sea/main.ts; its
// assets are the package's own files (bin/lanyard.js, dist/cli.cjs,
// dist/vendor/, dist/keychain-prefetch.cjs, dist/connection-prefetch.cjs, the root help (dist/root-help.txt,
// .json, .cjs), the emulator as one CommonJS
// file), one CommonJS bundle per npm package those require, jq's WebAssembly,
// and the keychain addon of the platform (@napi-rs/keyring's platform
// package). The blob is made without Node's code cache of the main script or
// a start-up snapshot (neither measured faster: docs/benchmarks.md), so one
// Node (the linux-x64 binary, run here) makes the blob of every platform; the
// CLI keeps its own code cache at run time, as the npm install does, and the
// linux-x64 executable also carries the caches of the commands scripts run
// most, made by its own Node (build-exe-train.mjs), for their first run.
//
// The downloaded packages are checked against the pinned integrity and kept
// in node_modules/.cache/lanyard-exe/ (CI caches that directory).
//
// Where the time goes (CPU): postject's injection (LIEF compiled to
// WebAssembly) ≈ 4 s for each ELF executable and ≈ 11 s for the Windows one,
// the code caches' training ≈ 1.5 s (beside the rest), everything else ≈ 3 s. The executables are made side by
// side, two at once (--jobs N; each injection holds up to 1.3 GB): the
// linux-x64 one first, which the tests run while the others are injected, then
// the Windows one beside the two ELF ones in a row.
//
// Options: --only <linux-x64|linux-arm64|win-x64> (repeatable) builds fewer
// (and keeps the others in dist/exe/); --jobs <n> builds n at once (default 2);
// --fetch only fetches and checks the packages into the cache.
import { build } from 'esbuild';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createReadStream, existsSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib } from 'node:zlib';
import { cachedPackage, MAX_GROWTH, NODE_VERSION, SEA_FUSE, TARGETS } from './build-exe-targets.mjs';
import { trainCodeCaches } from './build-exe-train.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));

if (process.argv[2] === '--inject') {
  // postject prints LIEF's warnings about Node's many ELF notes on stdout (harmless; ignored by the parent).
  const [file, blob] = process.argv.slice(3);
  const { inject } = await import('postject');
  await inject(file, 'NODE_SEA_BLOB', await readFile(blob), { sentinelFuse: SEA_FUSE });
  process.exit(0);
}

/** The keychain addon's packages: the CLI requires the one of its platform directly, keytar.js through index.js. */
const KEYRING_NATIVE = /^@napi-rs\/keyring(-[a-z0-9-]+)?$/;

const WORK = join(root, 'build', 'sea');
/** The Node binary that runs here (linux-x64): the one whose executable can carry code caches made with it. */
const HOST_NODE = TARGETS.find((t) => t.name === 'linux-x64').node.spec;
const OUT = join(root, 'dist', 'exe');

/** The children running now (blob makers, postject): a failing lane kills the others' before exiting, or they run on (postject: 1.3 GB, a whole core). */
const children = new Set();

const only = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--only' ? [a] : []));
const jobs = process.argv.includes('--jobs') ? Number(process.argv[process.argv.indexOf('--jobs') + 1]) : 2;
if (!(Number.isInteger(jobs) && jobs > 0)) fail('--jobs takes a positive whole number');
const targets = only.length ? TARGETS.filter((t) => only.includes(t.name)) : TARGETS;
if (only.some((o) => !TARGETS.some((t) => t.name === o))) fail(`--only takes ${TARGETS.map((t) => t.name).join(', ')}`);
if (!process.argv.includes('--fetch') && !existsSync(join(root, 'dist', 'cli.cjs'))) fail('dist/ is missing: run `npm run build` first');

function fail(message) {
  console.error(`build-exe: ${message}`);
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
}

const sri = (bytes) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/**
 * The unpacked npm package `spec` (its `package/` directory), fetched with
 * `npm pack` once and checked against `integrity` (the registry's dist.integrity).
 */
async function fetchPackage(spec, integrity) {
  const dir = dirname(cachedPackage(spec));
  const done = join(dir, '.integrity');
  if ((await readFile(done, 'utf8').catch(() => '')) === integrity) return join(dir, 'package');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  console.log(`build-exe: fetching ${spec}`);
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', spec, '--json', '--pack-destination', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  const tgz = join(dir, packed.filename);
  const got = sri(await readFile(tgz));
  if (got !== integrity) fail(`${spec}: integrity ${got}, expected ${integrity}`);
  execFileSync('tar', ['xzf', tgz, '-C', dir]);
  await rm(tgz);
  await writeFile(done, integrity);
  return join(dir, 'package');
}

/** The bare (package) specifiers a built CommonJS file requires (as esbuild reads it: code, not strings). */
async function requiredPackages(file) {
  // dist/cli.cjs is written as Node's module wrapper function (see build.mjs), whose
  // `require` is a parameter: read as the module body it is.
  const source = await readFile(file, 'utf8');
  const wrapped = /^\(function \(exports, require, module, __filename, __dirname\) \{\n([\s\S]*)\n\}\)\n(\/\/[^\n]*\n)?$/.exec(source);
  if (wrapped) {
    file = join(WORK, 'scan', relative(root, file));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, wrapped[1]);
  }
  const relativeExternal = { name: 'relative-external', setup: (b) => b.onResolve({ filter: /^\./ }, (a) => ({ path: a.path, external: true })) };
  const { metafile } = await build({
    ...common,
    entryPoints: [file],
    packages: 'external',
    plugins: [relativeExternal],
    write: false,
    outfile: 'scan.cjs',
    metafile: true,
    logLevel: 'error',
  });
  const found = new Set();
  for (const input of Object.values(metafile.inputs))
    for (const i of input.imports) if (i.external && !isBuiltin(i.path) && !i.path.startsWith('node:') && !i.path.startsWith('.')) found.add(i.path);
  return found;
}

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  format: 'cjs',
  logLevel: 'warning',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
};

/**
 * The assets all executables share (key → file) and the package map
 * (specifier → asset key): the package's files as built, the emulator as one
 * CommonJS file, and a bundle per required package.
 */
async function sharedAssets() {
  const files = {};
  const put = async (key, data) => {
    const file = join(WORK, 'assets', ...key.split('/'));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, data);
    files[key] = file;
  };
  // bin/lanyard.js reads package.json for --version only.
  await put('package.json', `${JSON.stringify({ name: pkg.name, version: pkg.version })}\n`);
  await put('bin/lanyard.js', await readFile(join(root, 'bin', 'lanyard.js')));
  const vendor = (await readdir(join(root, 'dist', 'vendor'))).filter((f) => f.endsWith('.cjs')).map((f) => `vendor/${f}`);
  for (const f of ['cli.cjs', 'keychain-prefetch.cjs', 'connection-prefetch.cjs', 'root-help.cjs', ...vendor])
    await put(`dist/${f}`, await readFile(join(root, 'dist', ...f.split('/'))));
  const wanted = new Set();
  for (const found of await Promise.all(Object.values(files).map(requiredPackages))) for (const p of found) wanted.add(p);
  // The pre-rendered root help bin/lanyard.js prints, and its layout for a terminal's width (text, not code).
  for (const f of ['root-help.txt', 'root-help.json']) await put(`dist/${f}`, await readFile(join(root, 'dist', f)));
  await emulatorAsset(put, wanted);
  for (const p of await requiredPackages(files['dist/lib/emulator-server.js'])) wanted.add(p);
  const modules = {};
  await Promise.all([...wanted].sort().map((spec) => packageAsset(spec, put, files, modules)));
  return { files, modules: Object.fromEntries(Object.entries(modules).sort(([a], [b]) => a.localeCompare(b))) };
}

/**
 * The emulator: an ES module with chunks in dist/lib/, required by the CLI
 * (require(esm)); here one CommonJS file with the same exports, holding the
 * packages only it uses (their shared dependencies once), and requiring the
 * ones the CLI uses too (`cliPackages`), and jose, from their own assets.
 */
async function emulatorAsset(put, cliPackages) {
  const shared = new Set([...cliPackages, 'jose']);
  const shareWithCli = {
    name: 'share-with-cli',
    setup: (b) =>
      b.onResolve({ filter: /^[^./]/ }, (a) =>
        shared.has(a.path) || a.path.startsWith('node:') || isBuiltin(a.path) ? { path: a.path, external: true } : undefined,
      ),
  };
  const entry = join(root, 'dist', 'lib', 'emulator-server.js');
  const emulator = await build({ ...common, entryPoints: [entry], plugins: [shareWithCli], write: false, outfile: 'emulator-server.js' });
  await put('dist/lib/emulator-server.js', emulator.outputFiles[0].contents);
}

/** The asset a package specifier resolves to in the executable (recorded in `modules`), written with `put`. */
async function packageAsset(spec, put, files, modules) {
  if (KEYRING_NATIVE.test(spec)) modules[spec] = 'addon';
  else if (spec === 'jose')
    modules[spec] = 'dist/vendor/jose.cjs'; // the CLI's copy: all of jose's exports
  else if (spec === 'jq-web') {
    // Emscripten's loader reads jq.wasm beside itself (through the executable's fs).
    const dir = join(root, 'node_modules', 'jq-web');
    await put('node_modules/jq-web/jq.js', await readFile(join(dir, 'jq.js')));
    await put('node_modules/jq-web/jq.wasm', await readFile(join(dir, 'jq.wasm')));
    modules[spec] = 'node_modules/jq-web/jq.js';
  } else {
    const key = `node_modules/${spec}.cjs`;
    const out = await build({
      ...common,
      stdin: { contents: `module.exports = require(${JSON.stringify(spec)});`, resolveDir: root, sourcefile: `${spec}.cjs`, loader: 'js' },
      write: false,
      outfile: 'bundle.cjs',
      plugins: [keyringIndexExternal],
    });
    await put(key, out.outputFiles[0].contents);
    modules[spec] = key;
    for (const p of await requiredPackages(files[key])) {
      if (KEYRING_NATIVE.test(p)) modules[p] = 'addon';
      // esbuild leaves a require it cannot resolve inside try/catch: an optional
      // package that is not installed, and fails in the executable as it would here.
      else console.log(`build-exe: ${spec}: optional ${p} is not installed, left out`);
    }
  }
}

/** keytar.js requires the package's own loader (./index.js), which looks for the addon on disk: the executable's addon instead. */
const keyringIndexExternal = {
  name: 'keyring-index',
  setup(b) {
    b.onResolve({ filter: /^\.\/index\.js$/ }, (args) =>
      /[\\/]@napi-rs[\\/]keyring[\\/]/.test(args.importer) ? { path: '@napi-rs/keyring', external: true } : undefined,
    );
  },
};

/** The SEA's main script: src/cli/sea/main.ts and what it imports, one CommonJS file. */
async function mainScript() {
  const file = join(WORK, 'main.cjs');
  await build({ ...common, entryPoints: [join(root, 'src', 'cli', 'sea', 'main.ts')], outfile: file, packages: 'external' });
  const stray = await requiredPackages(file);
  if (stray.size) fail(`the SEA main script requires ${[...stray].join(', ')}: it may require Node's built-ins only`);
  return file;
}

/**
 * A PE image without its Authenticode signature (the certificate table at the
 * end of the file, and the data directory entry pointing at it): adding the
 * blob would leave the Node.js project's signature in place but broken, which
 * Windows treats worse than none (Node's documentation removes it with
 * signtool first). Returns the image unchanged when it has none.
 */
function withoutSignature(image) {
  const pe = image.readUInt32LE(0x3c);
  if (image.toString('latin1', pe, pe + 4) !== 'PE\0\0') fail('the Windows Node binary is not a PE image');
  const opt = pe + 24;
  const dirs = opt + (image.readUInt16LE(opt) === 0x20b ? 112 : 96);
  const security = dirs + 4 * 8; // IMAGE_DIRECTORY_ENTRY_SECURITY: a file offset and a size
  const [offset, size] = [image.readUInt32LE(security), image.readUInt32LE(security + 4)];
  if (!size) return image;
  if (offset + size !== image.length) fail('the Windows Node binary has data after its certificate table');
  const out = Buffer.from(image.subarray(0, offset));
  out.writeUInt32LE(0, security);
  out.writeUInt32LE(0, security + 4);
  out.writeUInt32LE(0, opt + 64); // the image checksum covered the signature; 0 is "not computed", as the loader allows for programs
  return out;
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * Assets stored as they are: what every command reads (the launcher, the CLI,
 * the keychain prefetch). The others (the emulator, packages, jq's
 * WebAssembly, the addon) are stored compressed with Brotli and decompressed
 * when first loaded (≈ 1 ms per 100 kB): a quarter of the size, which keeps
 * every executable within MAX_GROWTH of its Node binary.
 */
const PLAIN = new Set([
  ...['package.json', 'bin/lanyard.js', 'dist/cli.cjs', 'dist/keychain-prefetch.cjs', 'dist/connection-prefetch.cjs'],
  ...['dist/root-help.txt', 'dist/root-help.json', 'dist/root-help.cjs'],
]);
const compressedFiles = new Map();
const brotliAsync = promisify(brotliCompress);

/**
 * `file` compressed with Brotli into `out` (default: beside it, `.br`), once
 * per build, on libuv's thread pool (the assets side by side). Quality 5: a
 * third of quality 9's CPU (0.7 s against 2 s for all assets) for 2% more
 * compressed bytes (≈ 60 kB an executable, 0.04% of it).
 */
function brotli(file, out = `${file}.br`) {
  if (!compressedFiles.has(out))
    compressedFiles.set(
      out,
      readFile(file)
        .then((data) => brotliAsync(data, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: data.length } }))
        .then((data) => writeFile(out, data))
        .then(() => out),
    );
  return compressedFiles.get(out);
}

/** Runs `command` (its stderr shown), resolving when it exits 0. */
function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'], ...options });
    children.add(child);
    child.once('error', (e) => {
      children.delete(child);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${basename(command)} ${args[0]} exited ${code ?? signal}`));
    });
  });
}

/** The SHA-256 of a file, read as a stream (the executables are 100–150 MB). */
function sha256File(file) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .once('error', reject)
      .on('data', (chunk) => hash.update(chunk))
      .once('end', () => resolve(hash.digest('hex')));
  });
}

async function buildTarget(t, shared, main, nodeForBlobs, trained) {
  const nodeBin = join(await fetchPackage(t.node.spec, t.node.integrity), ...t.node.file.split('/'));
  const addonFile = join(await fetchPackage(t.keyring.spec, t.keyring.integrity), t.keyring.file);
  const addonBytes = await readFile(addonFile);
  const dir = join(WORK, t.name);
  await mkdir(dir, { recursive: true });
  const assets = {};
  const compressed = [];
  // The trained code caches (linux-x64 only: made by its Node), stored as they are: V8 reads them in place.
  const caches = t.node.spec === HOST_NODE ? await trained : {};
  for (const [key, file] of Object.entries(caches)) assets[`code-cache/${key}.bin`] = file;
  for (const [key, file] of Object.entries({ ...shared.files, 'keyring.node': addonFile })) {
    if (PLAIN.has(key)) assets[key] = file;
    else {
      assets[key] = await brotli(file, key === 'keyring.node' ? join(dir, 'keyring.node.br') : undefined);
      compressed.push(key);
    }
  }
  const manifest = {
    assets: Object.keys(assets).sort(),
    compressed: compressed.sort(),
    modules: shared.modules,
    codeCache: Object.keys(caches).sort(),
    addon: { key: 'keyring.node', sha256: sha256(addonBytes) },
  };
  await writeFile(join(dir, 'sea.json'), JSON.stringify(manifest));
  const blob = join(dir, 'sea-prep.blob');
  // Paths relative to WORK, the directory Node runs in: the main script's
  // path is written into the blob (and its stack traces), the machine's own is not.
  const config = {
    main: relative(WORK, main),
    output: relative(WORK, blob),
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: false,
    // NODE_OPTIONS is for the user's own Node programs (a --require of a
    // project's loader, say), not for Lanyard: the executable ignores it.
    execArgvExtension: 'none',
    assets: { ...assets, 'sea.json': join(dir, 'sea.json') },
  };
  await writeFile(join(dir, 'sea-config.json'), JSON.stringify(config, null, 2));
  await run(nodeForBlobs, ['--experimental-sea-config', join(dir, 'sea-config.json')], { cwd: WORK });
  return inject(t, nodeBin, blob, nodeForBlobs);
}

/** `t`'s executable in dist/exe/: its Node binary `nodeBin` with `blob` injected; resolves with its SHA-256. */
async function inject(t, nodeBin, blob, nodeForBlobs) {
  const out = join(OUT, t.out);
  // Made beside and renamed into place: the last build's executable may be running (ETXTBSY), and
  // a failed build leaves no half-made one.
  const made = `${out}.${process.pid}.tmp`;
  await copyFile(nodeBin, made);
  await chmod(made, 0o755);
  if (t.name.startsWith('win-')) await writeFile(made, withoutSignature(await readFile(made)));
  // postject works on copies of the whole binary in WebAssembly memory, which
  // a process never gives back: each injection in a process of its own.
  // On the registry's Node (nodeForBlobs, the linux-x64 one) rather than this one: its V8 runs postject's
  // WebAssembly faster than Node 20's (Windows: 10.7 s of CPU against 12.0 s, whole process, median of 3).
  await run(nodeForBlobs, [fileURLToPath(import.meta.url), '--inject', made, blob]).catch(async (e) => {
    await rm(made, { force: true });
    throw e;
  });
  const [size, base] = [(await stat(made)).size, (await stat(nodeBin)).size];
  if (size > base * MAX_GROWTH) {
    await rm(made, { force: true });
    fail(`${t.out} weighs ${size} bytes, more than ${MAX_GROWTH}x its Node binary (${base})`);
  }
  await rename(made, out);
  console.log(
    `build-exe: dist/exe/${t.out} ${(size / 2 ** 20).toFixed(1)} MiB (${(size / base).toFixed(3)}x node ${NODE_VERSION}, blob ${((await stat(blob)).size / 2 ** 20).toFixed(1)} MiB)`,
  );
  return sha256File(out);
}

if (process.argv.includes('--fetch')) {
  // Only fetch and check the packages (CI, before the tests build the executables offline from the cache).
  for (const t of targets) for (const p of [t.node, t.keyring]) await fetchPackage(p.spec, p.integrity);
  process.exit(0);
}
if (process.platform !== 'linux' || process.arch !== 'x64') fail('builds on Linux x64 only (it runs the linux-x64 Node to make the blobs)');
// --only (development) keeps the other executables; SHA256SUMS lists what dist/exe/ holds.
if (!only.length) await rm(OUT, { recursive: true, force: true });
await Promise.all([mkdir(OUT, { recursive: true }), rm(WORK, { recursive: true, force: true })]);
const host = TARGETS.find((t) => t.name === 'linux-x64');
const nodeForBlobs = join(await fetchPackage(host.node.spec, host.node.integrity), host.node.file);
// Trained while the assets and blobs are made (a few seconds, mostly waiting on its children); only linux-x64 waits for them.
const trained = targets.some((t) => t.node.spec === HOST_NODE) ? trainCodeCaches(nodeForBlobs, root, WORK, children) : Promise.resolve({});
trained.catch((e) => fail(`training the code caches: ${e.message}`));
const [shared, main] = await Promise.all([sharedAssets(), mainScript()]);
// Side by side, `jobs` at once, in this order: linux-x64 first (the tests run
// it while the others are made), then the Windows one, the longest injection.
const ORDER = ['linux-x64', 'win-x64', 'linux-arm64'];
const queue = [...targets].sort((a, b) => ORDER.indexOf(a.name) - ORDER.indexOf(b.name));
const digests = {};
const lane = async () => {
  for (let t = queue.shift(); t; t = queue.shift()) digests[t.out] = await buildTarget(t, shared, main, nodeForBlobs, trained);
};
await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, lane)).catch((e) => fail(e.message));
const sums = [];
for (const t of TARGETS) if (existsSync(join(OUT, t.out))) sums.push({ name: t.out, sha256: digests[t.out] ?? (await sha256File(join(OUT, t.out))) });
// sha256sum's format: `sha256sum -c SHA256SUMS` checks the downloads.
await writeFile(join(OUT, 'SHA256SUMS'), sums.map((s) => `${s.sha256}  ${s.name}\n`).join(''));
console.log(`build-exe: dist/exe/SHA256SUMS (${relative(root, OUT)})`);
