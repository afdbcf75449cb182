/// <reference path="./keyring-platform.d.ts" />
/**
 * The OS keychain's native binding (@napi-rs/keyring), as the calls Lanyard
 * makes of it: keytar's four, each a promise settled on the binding's own
 * thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CredentialStoreError } from '../errors.js';

type Keytar = typeof import('@napi-rs/keyring/keytar.js');

/** One secret of the keychain's service: its account name and the secret. */
export interface KeychainEntry {
  account: string;
  password: string;
}

/** The keytar-compatible calls of the binding (service, account, secret). */
export interface KeychainBinding {
  getPassword(service: string, account: string): Promise<string | null | undefined>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<KeychainEntry[]>;
}

/** What the native binding itself exports (keytar.js wraps it). */
interface NativeKeyring {
  AsyncEntry: new (
    service: string,
    account: string,
  ) => { getPassword(): Promise<string | null | undefined>; setPassword(p: string): Promise<void>; deletePassword(): Promise<boolean> };
  findCredentialsAsync(service: string): Promise<KeychainEntry[]>;
}

/** Set by the build in the CLI's CommonJS bundles, where every `import()` is a `require()`. */
declare const __LANYARD_IMPORT_IS_REQUIRE__: boolean | undefined;

/**
 * The binding of this platform, loaded straight from its package: the
 * package's own loader (index.js) first probes for musl and tries a file
 * beside itself, which costs ≈ 3 ms of the keychain path of every command.
 * Only in the CLI's CommonJS bundles, where `import()` is `require()`: an ES
 * module cannot import a `.node` file cleanly (Node 20 refuses; Node 23.6
 * and later do it with an ExperimentalWarning on stderr), so the library
 * takes the package's own loader. Linux with glibc only; anywhere else, or
 * when the package is not where this module can resolve it (a strict
 * installer), the keytar-compatible API of the main package is used.
 */
async function platformBinding(): Promise<KeychainBinding | undefined> {
  if (typeof __LANYARD_IMPORT_IS_REQUIRE__ === 'undefined' || !__LANYARD_IMPORT_IS_REQUIRE__) return undefined;
  if (process.platform !== 'linux') return undefined;
  let native: NativeKeyring;
  try {
    if (process.arch === 'x64') native = (await import('@napi-rs/keyring-linux-x64-gnu')) as NativeKeyring;
    else if (process.arch === 'arm64') native = (await import('@napi-rs/keyring-linux-arm64-gnu')) as NativeKeyring;
    else return undefined;
  } catch {
    return undefined;
  }
  const { AsyncEntry, findCredentialsAsync } = (native as NativeKeyring & { default?: NativeKeyring }).default ?? native;
  if (typeof AsyncEntry !== 'function' || typeof findCredentialsAsync !== 'function') return undefined;
  // The keytar-compatible calls, as keytar.js defines them.
  return {
    getPassword: (service, account) => new AsyncEntry(service, account).getPassword(),
    setPassword: (service, account, password) => new AsyncEntry(service, account).setPassword(password),
    deletePassword: (service, account) => new AsyncEntry(service, account).deletePassword(),
    findCredentials: (service) => findCredentialsAsync(service),
  };
}

/**
 * Whether this platform's binding is installed, asked without loading it
 * (loading maps the addon and sets up its runtime: ≈ 1–2 ms of CPU, which a
 * read over D-Bus does not need): true when its package is where require()
 * would find it, false when it is not, undefined when this cannot be asked (the library, whose
 * `import()` is no `require()`; another platform; a `require` without
 * `resolve`). Only glibc Linux's packages are asked after, as
 * {@link platformBinding} loads them.
 */
export function platformBindingInstalled(): boolean | undefined {
  if (typeof __LANYARD_IMPORT_IS_REQUIRE__ === 'undefined' || !__LANYARD_IMPORT_IS_REQUIRE__) return undefined;
  if (process.platform !== 'linux' || typeof require === 'undefined' || typeof require.resolve !== 'function') return undefined;
  const name = process.arch === 'x64' ? '@napi-rs/keyring-linux-x64-gnu' : process.arch === 'arm64' ? '@napi-rs/keyring-linux-arm64-gnu' : undefined;
  if (!name) return undefined;
  // Where require() would look, each asked for the package's manifest: resolving it (require.resolve) costs ≈ 0.6 ms.
  const dirs = typeof require.resolve.paths === 'function' ? require.resolve.paths(name) : null;
  if (!dirs) return undefined;
  return dirs.some((dir) => existsSync(join(dir, name, 'package.json')));
}

/**
 * The binding, loaded by its first call (a write, a delete, a read of one
 * entry): for a keychain whose entries were read without it. A binding that
 * then cannot load fails that call with {@link KeychainBindingLoadError}
 * (openCredentialStore then turns to the 0600 file: late-fallback.ts).
 */
export function lazyKeychainBinding(): KeychainBinding {
  let loading: Promise<KeychainBinding> | undefined;
  const binding = () => (loading ??= loadKeychainBinding());
  return {
    getPassword: async (service, account) => (await binding()).getPassword(service, account),
    setPassword: async (service, account, password) => (await binding()).setPassword(service, account, password),
    deletePassword: async (service, account) => (await binding()).deletePassword(service, account),
    findCredentials: async (service) => (await binding()).findCredentials(service),
  };
}

/**
 * Marks a failure to load the binding, known across the CLI's bundles (the
 * keychain's prefetch and the CLI each have their own copy of the error
 * classes, so `instanceof` cannot tell).
 */
const UNLOADABLE = Symbol.for('lanyard.keychain-binding-unloadable');

/** The native binding could not be loaded (not installed, or its addon cannot be mapped: older glibc, noexec, another arch). */
export class KeychainBindingLoadError extends CredentialStoreError {
  readonly [UNLOADABLE] = true;
}

/** The failure to load the binding that `err` is or was caused by (keychainCall wraps what another bundle threw), if any. */
export function bindingLoadFailure(err: unknown): Error | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as Error).cause, depth++) {
    if ((e as { [UNLOADABLE]?: boolean })[UNLOADABLE] === true) return e as Error;
  }
  return undefined;
}

/** Loads the binding (calls nothing); throws KeychainBindingLoadError (a CredentialStoreError) when it cannot load. */
export async function loadKeychainBinding(): Promise<KeychainBinding> {
  try {
    return (
      (await platformBinding()) ??
      (await import('@napi-rs/keyring/keytar.js').then((mod: Keytar & { default?: Keytar }) => (mod.default ?? mod) as KeychainBinding))
    );
  } catch (err) {
    throw new KeychainBindingLoadError('the keychain binding could not be loaded', { cause: err });
  }
}

/**
 * Why this platform's binding cannot be loaded (the first line of the
 * loader's own error: `invalid ELF header`, a missing GLIBC version, …), or
 * undefined when it loads. For `doctor`, which must not call the keychain
 * usable on the strength of a read over D-Bus alone: a store opened that way
 * leaves the binding unloaded until its first write (lazyKeychainBinding).
 */
export async function keychainBindingProblem(): Promise<string | undefined> {
  try {
    await loadKeychainBinding();
    return undefined;
  } catch (err) {
    // The package's loader wraps what each of its tries met (a chain of causes) in a generic error: the telling one is the try that found a file.
    const lines: string[] = [];
    for (let e: unknown = (err as Error).cause, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) lines.push(e.message.split('\n')[0]!.trim());
    return lines.find((l) => !/^Cannot find (native binding|module)\b/.test(l)) ?? lines[0] ?? (err as Error).message;
  }
}

/** How long a keychain call may take by default (LANYARD_KEYCHAIN_TIMEOUT_MS overrides). */
export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 3000;

/**
 * Runs one keychain call with a time limit: a locked or absent Secret Service
 * must not hang the caller. Failures become CredentialStoreError, named by
 * `what` (`list`, `read`, `write`, `delete`).
 */
export async function keychainCall<T>(what: string, timeoutMs: number, f: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      f(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CredentialStoreError(`the keychain did not answer within ${timeoutMs} ms (${what})`)), timeoutMs);
        timer.unref?.();
      }),
    ]);
  } catch (err) {
    if (err instanceof CredentialStoreError) throw err;
    throw new CredentialStoreError(`keychain ${what} failed: ${String((err as Error)?.message ?? err).split('\n')[0]}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
