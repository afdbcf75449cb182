/**
 * The entry point of Lanyard's single-file executables (Node's single
 * executable applications, built by src/tools/build-exe.mjs).
 *
 * The executable holds the npm package's own files as assets — bin/lanyard.js,
 * dist/cli.cjs, dist/vendor/, the keychain prefetch, the emulator — plus one
 * CommonJS bundle per npm package they require and the keychain's native
 * addon of the platform. This module runs bin/lanyard.js as the npm install
 * does, with a `require` and an `fs` of its own that serve those assets from
 * inside the executable, at paths under the executable's own path
 * (`/usr/local/bin/lanyard/dist/cli.cjs`, say). So the code cache, the keychain
 * prefetch and every command work the same way in both; nothing is unpacked
 * but the addon (see addon.ts).
 */
import { readFileSync as realReadFileSync } from 'node:fs';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { getAsset, getRawAsset } from 'node:sea';
import { compileFunction } from 'node:vm';

/** What the build writes to the `sea.json` asset. */
interface Manifest {
  /** Every asset key (posix paths relative to the package root). */
  assets: string[];
  /** The assets stored compressed (Brotli). */
  compressed: string[];
  /** Bare specifiers → asset keys of their bundles (`addon`: the keychain addon). */
  modules: Record<string, string>;
  /** The keychain addon of this executable's platform: its asset key and SHA-256 (hex). */
  addon?: { key: string; sha256: string };
  /** The commands whose V8 code cache of dist/cli.cjs the build made (`auth.status`: asset `code-cache/auth.status.bin`). */
  codeCache?: string[];
}

const manifest = JSON.parse(getAsset('sea.json', 'utf8')) as Manifest;
const assets: ReadonlySet<string> = new Set(manifest.assets);
/** The package root the assets appear under: a path inside the executable file, which no real file can be beneath. */
const root = process.execPath;
const WRAPPER = ['exports', 'require', 'module', '__filename', '__dirname'];

/** The asset key of an absolute path under the root, or undefined. */
function keyOf(p: unknown): string | undefined {
  if (typeof p !== 'string' || !p.startsWith(root + path.sep)) return undefined;
  const key = p
    .slice(root.length + 1)
    .split(path.sep)
    .join('/');
  return assets.has(key) ? key : undefined;
}

const compressed: ReadonlySet<string> = new Set(manifest.compressed);

/** An asset's bytes (decompressed; a view of the executable's own memory when stored plain: do not write into it). */
function assetBytes(key: string): Buffer {
  const raw = getRawAsset(key);
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw);
  // zlib is required on first use: most commands read no compressed asset.
  return compressed.has(key) ? (require('node:zlib') as typeof import('node:zlib')).brotliDecompressSync(bytes) : bytes;
}

type Encoding = BufferEncoding | { encoding?: BufferEncoding | null; flag?: string } | null | undefined;
const encodingOf = (o: Encoding) => (typeof o === 'string' ? o : (o?.encoding ?? undefined));
const asRead = (key: string, o: Encoding) => {
  const bytes = assetBytes(key);
  const enc = encodingOf(o);
  return enc ? bytes.toString(enc) : Buffer.from(bytes); // a copy: callers may write into it
};

/**
 * `fs` as the assets' code sees it: reads of paths under the root come from
 * the executable, everything else goes to the real file system. An object
 * whose prototype is `fs` (copying fs's properties would run its lazy getters,
 * which load streams, readline and fs/promises: ≈ 10 ms).
 */
const assetFs: typeof fs = Object.create(fs, {
  readFileSync: {
    value: ((p: fs.PathOrFileDescriptor, o?: Encoding) => {
      const key = keyOf(p);
      return key ? asRead(key, o) : realReadFileSync(p, o);
    }) as typeof fs.readFileSync,
  },
  existsSync: { value: (p: fs.PathLike) => keyOf(p) !== undefined || fs.existsSync(p) },
  readFile: {
    value: ((p: fs.PathOrFileDescriptor, o: Encoding | ((...a: unknown[]) => void), cb?: (...a: unknown[]) => void) => {
      const callback = (typeof o === 'function' ? o : cb) as (err: unknown, data?: unknown) => void;
      const key = keyOf(p);
      if (!key) return typeof o === 'function' ? fs.readFile(p, o as never) : fs.readFile(p, o as never, cb as never);
      const options = typeof o === 'function' ? undefined : o;
      queueMicrotask(() => callback(null, asRead(key, options)));
    }) as typeof fs.readFile,
  },
  promises: { get: () => (assetPromises ??= promisesOf()) },
});
let assetPromises: typeof fs.promises | undefined;

function promisesOf(): typeof fs.promises {
  return Object.create(fs.promises, {
    readFile: {
      value: ((p: fs.PathLike | fs.promises.FileHandle, o?: Encoding) => {
        const key = keyOf(p);
        return key ? Promise.resolve(asRead(key, o)) : fs.promises.readFile(p, o);
      }) as typeof fs.promises.readFile,
    },
  });
}

const loaded = new Map<string, { exports: unknown }>();

/** Runs an asset as a CommonJS module (once) and returns its exports. */
function loadAsset(key: string): unknown {
  const done = loaded.get(key);
  if (done) return done.exports;
  const filename = path.join(root, ...key.split('/'));
  // A `#!` line is valid only at the very start of a script, not in a function body.
  const source = assetBytes(key).toString('utf8').replace(/^#!.*/, '');
  const mod = { exports: {} as unknown, id: filename, filename, loaded: false };
  loaded.set(key, mod);
  try {
    const fn = compileFunction(source, WRAPPER, { filename });
    fn.call(mod.exports, mod.exports, requireFrom(key), mod, filename, path.dirname(filename));
  } catch (err) {
    loaded.delete(key);
    throw err;
  }
  mod.loaded = true;
  return mod.exports;
}

function notFound(id: string): Error {
  return Object.assign(new Error(`Cannot find module '${id}' in this executable`), { code: 'MODULE_NOT_FOUND' });
}

/** The `require` of the asset `from`: Node's built-ins, the assets (relative or absolute paths) and the bundled packages. */
function requireFrom(from: string): NodeJS.Require {
  const resolve = (id: string): string => {
    if (id.startsWith('./') || id.startsWith('../') || path.isAbsolute(id)) {
      const key = keyOf(path.resolve(path.dirname(path.join(root, ...from.split('/'))), id));
      if (key) return key;
    } else {
      const key = manifest.modules[id];
      if (key) return key;
    }
    throw notFound(id);
  };
  const req = (id: string): unknown => {
    if (isBuiltin(id)) return id === 'fs' || id === 'node:fs' ? assetFs : id === 'fs/promises' || id === 'node:fs/promises' ? assetFs.promises : require(id);
    const key = resolve(id);
    // addon.ts (and node:crypto with it) is loaded on the keychain's path only.
    if (key === 'addon') return (require('./addon.js') as typeof import('./addon.js')).loadAddon(manifest.addon, process.env, assetBytes);
    return loadAsset(key);
  };
  const resolveFn = (id: string) => (isBuiltin(id) ? id : path.join(root, ...resolve(id).split('/')));
  return Object.assign(req, {
    resolve: Object.assign(resolveFn, { paths: () => null }),
    cache: {},
    extensions: {},
    main: undefined,
  }) as unknown as NodeJS.Require;
}

/**
 * The code caches of dist/cli.cjs the build made with this executable's own
 * Node (linux-x64; src/tools/build-exe-train.mjs), for bin/lanyard.js: it
 * reads a command's cache from the user's cache directory and, when that has
 * none, asks here. Handed as they are stored (a view of the executable's
 * memory). A cache V8 accepts is not written to the directory; one it
 * rejects is replaced there by the run's own, which is read from then on.
 */
const codeCaches: ReadonlySet<string> = new Set(manifest.codeCache ?? []);
Object.defineProperty(globalThis, Symbol.for('lanyard.builtCodeCache'), {
  value: (key: string): Buffer | undefined => (codeCaches.has(key) ? assetBytes(`code-cache/${key}.bin`) : undefined),
});

loadAsset('bin/lanyard.js');
