#!/usr/bin/env node
// Launcher (CommonJS: see bin/package.json; an ES-module entry costs Node's
// ESM loader, ~15 ms). `lanyard --version` and the root help are answered
// here without loading the CLI. Everything else runs dist/cli.cjs, compiled with a V8 code cache
// kept per command (group and subcommand: `auth.status.bin`) in the user's
// cache directory, so a command skips parsing and compiling what it ran the
// last time: Node 20 has no module.enableCompileCache(), and a code cache
// exists only for scripts. (One cache per group held only what the group's
// first command compiled, V8 compiling functions lazily: the group's other
// commands compiled theirs on every run.)
//
// The cache is an optimisation and never an error: a missing, stale or
// rejected cache compiles from source, a cache that cannot be written is
// skipped. LANYARD_COMPILE_CACHE=0 turns it off; LANYARD_CACHE_DIR moves it.
//
// For commands that read stored credentials, the keychain's opening (D-Bus
// ping, native binding, one Secret Service search on the binding's thread)
// starts before the CLI is read and compiled, from the small
// dist/keychain-prefetch.cjs, and is handed to main: the waiting overlaps with
// the compiling. LANYARD_KEYCHAIN_PREFETCH=0 turns it off.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** Builds (Node versions, installs) whose caches are kept beside the current one's. */
const KEEP_OTHER_BUILDS = 3;

/** The longest the CLI's loading waits for the keychain's search to be sent (see run()). */
const HEAD_START_MS = 20;

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // writeSync: building process.stdout costs a few ms, more than the whole answer.
  writeOut(Buffer.from(JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).version + '\n'));
} else if (!rootHelp()) {
  quietNodeWarnings();
  try {
    run().catch(fail);
  } catch (err) {
    fail(err);
  }
}

/**
 * The root help (`lanyard`, `lanyard --help`, `-h`, `help`) without loading
 * the CLI, which costs more than Node's own start: to a pipe, a file or
 * /dev/null the text the build rendered with commander (dist/root-help.txt;
 * test/e2e/launcher.test.ts compares the two); on a terminal, whose width
 * commander wraps to, the build's layout of it wrapped by commander's Help
 * class at that width (dist/root-help.cjs, src/cli/output/root-help.ts).
 * When the width cannot be told, or a file is missing, the CLI answers. True
 * when answered.
 */
function rootHelp() {
  if (args.length > 1 || (args.length === 1 && !['--help', '-h', 'help'].includes(args[0]))) return false;
  let text;
  try {
    const dist = path.join(__dirname, '..', 'dist');
    const width = mayBeTerminal(1) ? terminalWidth() : 80;
    if (width === undefined) return false;
    text = width === 80 ? fs.readFileSync(path.join(dist, 'root-help.txt')) : rootHelpAt(dist, width);
  } catch {
    return false;
  }
  writeOut(text);
  return true;
}

/**
 * The root help wrapped at `width` columns: rendered from the build's layout
 * (≈ 3 ms of CPU: commander's Help class runs cold), and kept in the cache
 * directory as `root-help/<width>.<stamp>.txt` (0600 in a 0700 directory,
 * written atomically), the stamp being the build's hash of the layout and its
 * renderer, which root-help.json opens with (not the file's size and mtime:
 * npm installs every file with the same mtime, and two builds' layouts may
 * have one size), so another build's text is never shown; the first text of
 * a new stamp removes those of all but the few most recent other stamps (two
 * installs used in turn keep theirs). Without a cache directory
 * (LANYARD_COMPILE_CACHE=0), or without a stamp, rendered each time.
 */
function rootHelpAt(dist, width) {
  const layout = fs.readFileSync(path.join(dist, 'root-help.json'), 'utf8');
  const stamp = /^\{"build":"([0-9a-f]{16})"/.exec(layout)?.[1];
  const base = stamp && cacheBase();
  const file = base && path.join(base, 'root-help', `${width}.${stamp}.txt`);
  try {
    if (file) return fs.readFileSync(file);
  } catch {
    // Not rendered at this width yet: rendered below.
  }
  const text = Buffer.from(require(path.join(dist, 'root-help.cjs')).renderRootHelp(JSON.parse(layout), width));
  if (file) {
    try {
      const dir = path.dirname(file);
      makePrivateDir(dir);
      const names = fs.readdirSync(dir);
      if (!names.some((name) => name.split('.')[1] === stamp)) {
        const newest = new Map();
        for (const name of names) newest.set(name.split('.')[1], Math.max(newest.get(name.split('.')[1]) ?? 0, fs.statSync(path.join(dir, name)).mtimeMs));
        const kept = new Set(
          [...newest]
            .sort((a, b) => b[1] - a[1])
            .slice(0, KEEP_OTHER_BUILDS)
            .map(([s]) => s),
        );
        for (const name of names) if (!kept.has(name.split('.')[1])) fs.rmSync(path.join(dir, name), { force: true });
      }
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, text, { mode: 0o600 });
      fs.renameSync(tmp, file);
    } catch {
      // A read-only or full cache directory: rendered again next time.
    }
  }
  return text;
}

/**
 * The width commander gives the help on stdout, as the CLI's IO tells it: 80
 * unless stdout is a terminal; on one, COLUMNS when it is a positive whole
 * number, else the terminal's columns (0: 80). Asked of Node's TTY binding
 * (the ioctl that tty.WriteStream makes), since node:tty loads net and the
 * stream stack, about 3 ms; undefined (the CLI answers) when the binding is
 * missing or Node is asked to report deprecations (process.binding is
 * DEP0111, a documentation-only deprecation that --pending-deprecation turns
 * into a warning).
 */
function terminalWidth() {
  if (/--(pending|throw)-deprecation\b/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`)) return undefined;
  const { TTY, isTTY } = process.binding('tty_wrap');
  if (!isTTY(1)) return 80;
  const env = process.env.COLUMNS;
  if (env && Number.isInteger(Number(env)) && Number(env) > 0) return Number(env);
  const size = [];
  // As tty.WriteStream: a handle on fd 1 (libuv reopens the terminal for it), blocking writes. Never
  // closed: when libuv could not reopen the terminal the handle's descriptor is fd 1 itself.
  const handle = new TTY(1, {});
  handle.setBlocking?.(true);
  if (handle.getWindowSize(size) !== 0) return undefined;
  return size[0] || 80;
}

/**
 * Whether fd may be a terminal, without loading node:tty (which loads net and
 * the stream stack): only a character device can be one, and on Linux not a
 * memory device (major 1: /dev/null, /dev/zero, ...).
 */
function mayBeTerminal(fd) {
  const st = fs.fstatSync(fd);
  if (!st.isCharacterDevice()) return false;
  return !(process.platform === 'linux' && Math.floor(st.rdev / 256) % 4096 === 1);
}

/** All of `bytes` to stdout; a reader that went away is no error, a non-blocking pipe gets the rest through process.stdout. */
function writeOut(bytes) {
  let off = 0;
  try {
    while (off < bytes.length) off += fs.writeSync(1, bytes, off);
  } catch (err) {
    if (err?.code === 'EAGAIN') process.stdout.write(bytes.subarray(off));
    else if (err?.code !== 'EPIPE' && err?.code !== 'ECONNRESET') throw err; // the reader went away (a pipe, a socket): nothing to say
  }
}

/**
 * Node.js's own warnings (deprecations, experimental features, listener
 * leaks: `(node:1234) [DEP…] …`) are not printed: users and scripts read
 * stderr, and a runtime's warning there reads as Lanyard's failure. Their
 * causes in Lanyard are fixed (test/e2e/node-warnings.test.ts finds them on
 * each Node version); this keeps what a newer Node or a dependency adds off
 * the screen. --debug (LANYARD_DEBUG=1) shows them, as does asking Node for
 * them (--trace-warnings, --trace-deprecation, --throw-deprecation,
 * --pending-deprecation, --redirect-warnings in NODE_OPTIONS).
 */
function quietNodeWarnings() {
  const asked = /--(trace-warnings|trace-deprecation|throw-deprecation|pending-deprecation|redirect-warnings)\b/;
  if (asked.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`)) return;
  if (process.env.LANYARD_DEBUG === '1' || args.includes('--debug')) return;
  // Node prints a warning from its own 'warning' listener (none with --no-warnings).
  for (const listener of process.listeners('warning')) if (listener.name === 'onWarning') process.removeListener('warning', listener);
}

/** A broken install (no dist/, say) or a bug that escaped main: one line and exit 1, not a stack trace. */
function fail(err) {
  const detail =
    err?.code === 'ENOENT' && /dist[\\/]cli\.cjs/.test(String(err.message))
      ? 'dist/cli.cjs is missing (run `npm run build` in a source checkout)'
      : (err?.message ?? String(err));
  process.stderr.write(`lanyard: ${detail}\n`);
  if (process.env.LANYARD_DEBUG === '1' && err?.stack) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
}

function run() {
  const { word, sub } = commandWords(args);
  // The mailbox commands collect young garbage by hand during large transfers and keep V8 to its baseline
  // WebAssembly tier (src/cli/commands/mailbox/memory.ts sets the same two flags). Set before compiling, the
  // same way for every run of the group: V8 accepts a code cache only under the flags it was made with.
  // The protocol commands hold V8's young generation and skip Maglev: the bridge lives as long as its
  // host (src/cli/commands/protocol/bridge.ts says why; it sets the same two flags itself).
  const flags = word === 'mailbox' ? ['--liftoff-only', '--expose-gc'] : word === 'protocol' ? ['--semi-space-growth-factor=1', '--no-maglev'] : [];
  const flagged = flags.length > 0;
  if (flagged) {
    const { setFlagsFromString } = require('node:v8');
    for (const f of flags) setFlagsFromString(f);
  }
  const base = cacheBase();
  // Node 22.1+ caches what its module loader compiles (dist/vendor/, the
  // keychain prefetch, the emulator, external packages) in a directory of its
  // own beside ours. The bundle keeps our cache there too: Node's cache of it
  // measured slower on Node 22 and 24 (it lacks the functions a command
  // compiles as it runs).
  if (base && Number(process.versions.node.split('.')[0]) >= 22) enableNodeCompileCache(path.join(base, 'node-compile-cache'));
  const prefetch = word === 'main' ? undefined : prefetchKeychain(word, base, flagged);
  const keychain = prefetch?.keychain;
  const preconnected = word === 'api' ? prefetchConnection(word) : undefined;
  const handed = { keychain, preconnected, saveKeychainCache: prefetch?.saveCache };
  if (!keychain) return compileAndRun(word, sub, flagged, base, handed);
  let sent = false;
  keychain.sent.then(() => (sent = true));
  keychain.isSent = () => sent;
  // Give the keychain's requests the event loop until they are sent (a few ms), but not longer than
  // HEAD_START_MS when the Secret Service is slow to answer.
  let timer;
  return Promise.race([keychain.sent, new Promise((resolve) => (timer = setTimeout(resolve, HEAD_START_MS)))]).then(() => {
    clearTimeout(timer);
    return compileAndRun(word, sub, flagged, base, handed);
  });
}

/**
 * The API's TLS connection for `lanyard api`, opened while the CLI loads
 * (dist/connection-prefetch.cjs decides from the arguments, the environment
 * and the profile whether the CLI would open the same one), or undefined.
 * Never an error: the command connects itself then.
 */
function prefetchConnection(word) {
  try {
    return require(path.join(__dirname, '..', 'dist', 'connection-prefetch.cjs')).prefetchConnection(word, args, process.env);
  } catch {
    return undefined;
  }
}

/**
 * The keychain's opening (dist/keychain-prefetch.cjs decides whether the command reads credentials) and what
 * writes that file's V8 code cache (`<cache>/prefetch-cache/<node>-<arch>-<its hash>/`) after a run that opened
 * the keychain, so the D-Bus reader is not compiled on every run. Undefined, never an error, when not opened.
 */
function prefetchKeychain(word, base, flagged) {
  const env = process.env;
  // Off, or what the prefetch declines on the environment alone (its wantsKeychain()), without loading it (≈ 1 ms).
  if (['0', 'off', 'false'].includes(env.LANYARD_KEYCHAIN_PREFETCH ?? '') || env.LANYARD_KEYCHAIN === 'off' || env.LANYARD_INSECURE_STORAGE === '1')
    return undefined;
  if (process.platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS) return undefined;
  try {
    const { file, source, dir } = distFile('keychain-prefetch.cjs', base, 'prefetch-cache');
    const key = flagged ? `keychain-prefetch.${word}` : 'keychain-prefetch';
    const cachedData = dir ? readCache(dir, key) : undefined;
    const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
    const script = new (require('node:vm').Script)(wrapped, { filename: file, cachedData });
    const mod = { exports: {} };
    script.runInThisContext()(mod.exports, require, mod, file, path.dirname(file));
    const keychain = mod.exports.prefetchKeychain(word, args, process.env);
    if (!keychain) return undefined;
    const saveCache = () => dir && (!cachedData || script.cachedDataRejected) && writeCache(dir, key, script.createCachedData());
    return { keychain, saveCache };
  } catch {
    return undefined;
  }
}

/**
 * A file of dist/ as the launcher compiles it (the build keeps it ASCII, so it is read as latin1) and the
 * directory of its V8 code caches, `<base>/<kind>/<node>-<arch>-<build id>/`: the build ends the file with
 * `//# lanyard-build=<hash>`, so a cache never meets another build (undefined without a cache base or an id).
 */
function distFile(name, base, kind) {
  const file = path.join(__dirname, '..', 'dist', name);
  const source = fs.readFileSync(file, 'latin1');
  const id = /\/\/# lanyard-build=([0-9a-f]+)\s*$/.exec(source.slice(-64))?.[1];
  return { file, source, dir: base && id && path.join(base, kind, `${process.version}-${process.arch}-${id}`) };
}

/** `handed`: what was opened before the CLI loaded and goes to main (the keychain's opening, the API's connection). */
function compileAndRun(word, sub, flagged, base, handed) {
  const { keychain, preconnected } = handed;
  const vm = require('node:vm');
  // <cache>/compile-cache/<node>-<arch>-<build>/<group>[.<subcommand>].bin
  const { file, source, dir } = distFile('cli.cjs', base, 'compile-cache');
  // The command's cache, else the group's (a group run without a subcommand:
  // `api /user`, `auth --help`), else (without the group's flags) the root one.
  const keys = [...new Set([sub ? `${word}.${sub}` : word, word, ...(flagged ? [] : ['main'])])];
  let key;
  let cachedData;
  for (const k of dir ? keys : []) if ((cachedData = readCache(dir, (key = k)))) break;

  // No import() in the bundle (the build turns them into require()): Node 20
  // cannot combine it with a code cache.
  // The build wraps the bundle in Node's CommonJS function wrapper already.
  const script = new vm.Script(source, { filename: file, cachedData });
  // The API's TLS handshake starts over its TCP connection, made while the
  // bundle compiled (see prefetchConnection).
  preconnected?.handshake();
  // The Secret Service's answer to the ping often arrives while the bundle
  // compiles (on a busy machine, after HEAD_START_MS), as does the API's
  // TCP connection: one turn of the event loop reads them and sends the
  // search, or the TLS hello, before the CLI runs, instead of when the command
  // first waits (after reading its config, or at its request).
  if ((keychain && !keychain.isSent()) || preconnected)
    return new Promise(setImmediate).then(() => runBundle(script, file, word, sub, flagged, dir, key, cachedData, handed));
  return runBundle(script, file, word, sub, flagged, dir, key, cachedData, handed);
}

function runBundle(script, file, word, sub, flagged, dir, key, cachedData, handed) {
  const cjs = { exports: {} };
  // The bundle requires Node's built-ins and packages, which resolve from here
  // as from dist/ (both sit beside the package's node_modules), and files
  // beside it in dist/ (./vendor/…, the emulator's ./lib/emulator-server.js).
  const dist = path.dirname(file);
  const distRequire = (id) => require(id.startsWith('./') ? path.join(dist, id) : id);
  script.runInThisContext()(cjs.exports, distRequire, cjs, file, dist);
  const { keychain, preconnected, saveKeychainCache } = handed;
  const done = cjs.exports.main(process.argv, { ...(keychain ? { keychain } : {}), ...(preconnected ? { preconnected } : {}) });
  // A connection the command did not take is closed (a taken one is the command's HTTP client's).
  if (preconnected) done.finally(() => preconnected.discard()).catch(() => undefined);
  return done.then((result) => {
    saveKeychainCache?.();
    if (!dir) return;
    // Cache under the command that ran: its group and, when main confirms
    // that the word after it names one of the group's commands, that word
    // (`main` for root help, typos, ...); unless a usable cache of that name
    // was just read, or the run was not the group the flags were chosen for
    // (`lanyard --bogus auth`). A command's cache is written once (again when
    // V8 rejects it); the command tree bounds their number.
    const group = result?.group ?? 'main';
    if (group !== word && (group !== 'main' || flagged)) return;
    const ran = group !== 'main' && sub && result.sub === sub ? `${group}.${sub}` : group;
    if (ran === key && cachedData && !script.cachedDataRejected) return;
    writeCache(dir, ran, script.createCachedData());
  });
}

/**
 * The first word that is not a root option: the likely command group (a cache
 * key; `main` for none); and the word right after it, the likely subcommand
 * (main confirms it before a cache is written under it).
 */
function commandWords(argv) {
  const plain = /^[a-z][a-z0-9-]{0,31}$/;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-p' || a === '--profile' || a === '--max-wait' || a === '--timeout') i++;
    else if (!a.startsWith('-')) return plain.test(a) ? { word: a, sub: plain.test(argv[i + 1] ?? '') ? argv[i + 1] : undefined } : { word: 'main' };
  }
  return { word: 'main' };
}

/** Lanyard's cache directory, or undefined when caching is turned off or there is no home. */
function cacheBase() {
  const env = process.env;
  if (['0', 'off', 'false'].includes(env.LANYARD_COMPILE_CACHE ?? '') || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (env.LANYARD_CACHE_DIR) return env.LANYARD_CACHE_DIR;
  const home = env.HOME || env.USERPROFILE;
  if (process.platform === 'win32') return env.LOCALAPPDATA && path.join(env.LOCALAPPDATA, 'lanyard', 'Cache');
  if (process.platform === 'darwin') return home && path.join(home, 'Library', 'Caches', 'lanyard');
  if (env.XDG_CACHE_HOME || home) return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'lanyard');
  return undefined;
}

/**
 * `mkdir -p DIR` (0700) that returns: Node's `recursive: true` never returns
 * where mkdir answers ENOENT under a directory that exists (a cache directory
 * under /proc), spinning at full CPU. Each missing level made once, as
 * src/shared/make-dir.ts does for the bundle (which the launcher does not load
 * for this); a level that cannot be made throws, and the caller goes without.
 */
function makePrivateDir(dir) {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (err.code === 'EEXIST') return;
    if (err.code !== 'ENOENT' || path.dirname(dir) === dir) throw err;
    makePrivateDir(path.dirname(dir));
    fs.mkdirSync(dir, { mode: 0o700 });
  }
}

/** Node's own compile cache in `dir`, made first: Node makes it with its recursive mkdir, which never returns under /proc. */
function enableNodeCompileCache(dir) {
  try {
    makePrivateDir(dir);
  } catch {
    return; // No cache where none can be made.
  }
  require('node:module').enableCompileCache?.(dir);
}

function readCache(dir, key) {
  try {
    return fs.readFileSync(path.join(dir, `${key}.bin`));
  } catch {
    // None written yet: the single-file executable's, made by its build (src/cli/sea/main.ts), if it has one.
    return globalThis[Symbol.for('lanyard.builtCodeCache')]?.(key);
  }
}

/**
 * Atomic (temp file + rename), private (0700 directory, 0600 file). The first
 * write of a build removes the caches of all but the few most recently
 * written other builds: upgrades do not pile up, and two installs used in
 * turn (a global one and a project's) do not delete each other's.
 */
function writeCache(dir, key, data) {
  try {
    if (!fs.existsSync(dir)) {
      makePrivateDir(dir);
      const parent = path.dirname(dir);
      const others = fs
        .readdirSync(parent)
        .filter((name) => name !== path.basename(dir))
        .map((name) => ({ name, mtime: fs.statSync(path.join(parent, name)).mtimeMs }))
        .sort((a, b) => b.mtime - a.mtime);
      for (const old of others.slice(KEEP_OTHER_BUILDS)) fs.rmSync(path.join(parent, old.name), { recursive: true, force: true });
    }
    const tmp = path.join(dir, `.${key}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, data, { mode: 0o600 });
    fs.renameSync(tmp, path.join(dir, `${key}.bin`));
  } catch {
    // Read-only home, full disk, a race with another run: start-up just stays uncached.
  }
}
