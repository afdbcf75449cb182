/**
 * The context's one door to credential storage: the OS keychain, else the
 * 0600 file, opened once per process (one keychain probe, whichever service
 * asks first) and handed to every service as a `CredentialStoragePort`.
 * The cross-process lock of the config directory is not part of it: config
 * writes and pacing hold that lock too (`Context.credentialLock()`).
 */
import type { CredentialStore } from '../../core/deps.js';
import type { CredentialLock } from '../../core/credentials/lock.js';
import type { KeychainOpening } from '../../core/credentials/keychain-open.js';
import type { MarkedMove } from '../../core/credentials/file-over-keychain.js';
import type { HostingAccounts } from '../../core/hosting/accounts.js';
import { keychainTimeoutMs } from './keychain-env.js';

export interface CredentialStoragePort {
  /** The primary store as opened (the OS keychain, else the 0600 file), no warnings; every secret through it is redacted from output. */
  readonly primary: CredentialStore;
  /** Why the keychain is not used, when it is not. */
  readonly fallbackReason?: string;
  /** Set when the keychain is required (never the file): what requires it, `LANYARD_KEYCHAIN=required` or the profile's `keychain required`. */
  readonly required?: string;
  /** The 0600 file store (also read behind the keychain, for what --insecure-storage saved). */
  readonly file: CredentialStore & { path: string };
  /** The directory of the config and of the file store. */
  readonly dir: string;
  /**
   * The primary store for a command's reads and writes (over a keychain, the 0600 file's newer copies read
   * first: file-over-keychain.ts). A fallback to the file is said (once per process): at once when unexpected,
   * at the first write when chosen (LANYARD_INSECURE_STORAGE, LANYARD_KEYCHAIN=off).
   */
  store(): CredentialStore;
  /**
   * Where to look a credential up, each entry in one store: store(); or, over a keychain that is not required,
   * the keychain without what the 0600 file holds, then the file (its copy is the newer: file-over-keychain.ts).
   */
  lookup(): CredentialStore[];
  /** The hosting accounts of an API URL, over the stores lookup() reads (cached per URL for the run). */
  hostingAccounts(apiUrl: string): Promise<HostingAccounts>;
  /**
   * Over a keychain that is not required: moves the 0600 file's copies written during a fallback into the keychain
   * now (`lanyard doctor`; any write moves them too: file-over-keychain.ts).
   */
  readonly moveMarked?: () => Promise<MarkedMove>;
}

/** Opening the port: await it for the port; `idle` resolves when opening leaves the process idle (the keychain's search is under way). */
export type CredentialStorageOpening = Promise<CredentialStoragePort> & { readonly idle: Promise<void> };

/** What opening the stores needs from the context. */
export interface StorageEnv {
  env: NodeJS.ProcessEnv;
  /** The directory of the 0600 file (and the config file, when profiles are read from disk). */
  configDir(): Promise<string>;
  lock(): Promise<CredentialLock>;
  /** LANYARD_KEYCHAIN=required, else the profile's `keychain required` (never the 0600 file): which of them, in words; undefined when neither. */
  keychainRequired(): Promise<string | undefined>;
  /** The keychain's opening, when bin/lanyard.js started it (keychain-prefetch.ts). */
  keychain?: KeychainOpening;
  warnOnce(key: string, text: string): void;
  /** Remembers a secret read or written, to redact it from output. */
  remember(secret: string | undefined): void;
  /** The --debug trace, when on. */
  trace?: (line: string) => void;
  /** Told when opening leaves the process idle. */
  onWaiting(): void;
}

/** Opens the OS keychain, else the 0600 file (`insecure`: the file without probing). */
export async function openStoragePort(s: StorageEnv, insecure: boolean): Promise<CredentialStoragePort> {
  const [{ openCredentialStores }, dir, lock, requiredBy] = await Promise.all([
    import('../../core/credentials/open.js'),
    s.configDir(),
    s.lock(),
    s.keychainRequired(),
  ]);
  const requireKeychain = !!requiredBy;
  let fallbackReason: string | undefined;
  // A keychain read over D-Bus whose binding cannot load at its first write turns to the file then: said as at opening.
  let isOpen = false;
  const disabled = s.env.LANYARD_KEYCHAIN === 'off';
  const onFallback = (reason: string) => {
    // The library names no variable of the CLI: the CLI says which of its own turned the keychain off.
    const why = disabled ? `${reason} (LANYARD_KEYCHAIN=off)` : reason;
    if (isOpen) s.warnOnce('credential-fallback', fileFallbackWarning(why, dir));
    else fallbackReason = why;
  };
  const prefetched = s.keychain && !insecure;
  const { primary, file, layered } = await openCredentialStores({
    configDir: dir,
    lock,
    insecure,
    disableKeychain: disabled,
    requireKeychain,
    requiredBy,
    timeoutMs: keychainTimeoutMs(s.env),
    sessionBus: s.env.DBUS_SESSION_BUS_ADDRESS,
    ...(prefetched ? { keychain: s.keychain } : {}),
    onFallback,
    onWaiting: s.onWaiting,
  });
  if (s.trace) {
    const opened = prefetched ? await s.keychain!.result : undefined;
    const via = opened?.ok && opened.via === 'secret-service' ? '; entries read over D-Bus' : '';
    const opener = prefetched ? `opened before the CLI loaded (bin/lanyard.js)${via}` : 'opened by the command';
    s.trace(`* credential store: ${primary.kind === 'keychain' ? `OS keychain, ${opener}` : `0600 file${fallbackReason ? ` (${fallbackReason})` : ''}`}`);
  }
  const stores = { primary: remembering(primary, s.remember), fallbackReason, file: remembering(file, s.remember, file.path), dir, required: requiredBy };
  isOpen = true;
  // Behind the keychain, the file holds what --insecure-storage or a fallback saved, and its copy is the newer (file-over-keychain.ts,
  // applied by core's opening, as for the library's openCredentialStore); a required keychain never reads it.
  if (!layered) {
    const store = once(() => warningStore(s, stores));
    return storagePort(stores, store, () => [store()], [stores.primary]);
  }
  const [first, ...lookup] = [layered.first, layered.beneath, layered.behind].map((view) => remembering(view, s.remember));
  return storagePort(
    { ...stores, moveMarked: layered.moveMarked },
    () => first,
    () => lookup,
    lookup,
  );
}

/** The port of a store handed in (`ContextPorts.credentials`): the only store, looked in and written to as it is. */
export function givenStoragePort(store: CredentialStore, dir: string): CredentialStoragePort {
  const file = storeView(store, {}, '(a store handed in)');
  return storagePort(
    { primary: store, file, dir },
    () => store,
    () => [store],
    [store],
  );
}

function storagePort(
  opened: Pick<CredentialStoragePort, 'primary' | 'fallbackReason' | 'file' | 'dir' | 'required' | 'moveMarked'>,
  store: () => CredentialStore,
  lookup: () => CredentialStore[],
  hostingStores: CredentialStore[],
): CredentialStoragePort {
  const accounts = new Map<string, Promise<HostingAccounts>>();
  return {
    ...opened,
    store,
    lookup,
    hostingAccounts(apiUrl) {
      let p = accounts.get(apiUrl);
      if (!p) accounts.set(apiUrl, (p = import('../../core/hosting/accounts.js').then(({ HostingAccounts }) => new HostingAccounts(apiUrl, hostingStores))));
      return p;
    },
  };
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** The primary store, saying a fallback to the file: an unexpected one at once, a chosen one when a secret is written. */
function warningStore(
  s: StorageEnv,
  { primary: store, fallbackReason: why, dir }: Pick<CredentialStoragePort, 'primary' | 'fallbackReason' | 'dir'>,
): CredentialStore {
  const explicit = s.env.LANYARD_INSECURE_STORAGE === '1' || s.env.LANYARD_KEYCHAIN === 'off';
  if (store.kind !== 'file' || !why) return store;
  const where = `a plain file (mode 0600) in ${dir}`;
  if (!explicit) {
    s.warnOnce('credential-fallback', fileFallbackWarning(why, dir));
    return store;
  }
  return {
    kind: store.kind,
    get: (account) => store.get(account),
    delete: (account) => store.delete(account),
    list: () => store.list(),
    async set(account, secret) {
      s.warnOnce('credential-fallback', `${why}: storing the credential in ${where}`);
      await store.set(account, secret);
    },
  } satisfies CredentialStore;
}

/** The warning of a fallback to the file nobody chose. */
function fileFallbackWarning(why: string, dir: string): string {
  return `${why}; credentials are kept in a plain file (mode 0600) in ${dir}`;
}

/**
 * The store, with every secret read from or written to it remembered for
 * redaction (the context's Secrets). The active login of a host (`hosting:<host>`, plain
 * text beside the JSON records) is an identifier, not a secret.
 */
function remembering(store: CredentialStore, rememberSecret: (secret: string | undefined) => void): CredentialStore;
function remembering(store: CredentialStore, rememberSecret: (secret: string | undefined) => void, path: string): CredentialStore & { path: string };
function remembering(store: CredentialStore, rememberSecret: (secret: string | undefined) => void, path?: string): CredentialStore {
  const remember = (account: string, v: string | undefined) => {
    if (!(account.startsWith('hosting:') && v !== undefined && !v.startsWith('{'))) rememberSecret(v);
  };
  const view = {
    async get(account: string) {
      const v = await store.get(account);
      remember(account, v);
      return v;
    },
    set(account: string, secret: string) {
      remember(account, secret);
      return store.set(account, secret);
    },
    opened() {
      const entries = store.opened;
      for (const [account, secret] of entries ?? []) remember(account, secret);
      return entries;
    },
  };
  return path === undefined ? storeView(store, view) : storeView(store, view, path);
}

/** What a view of a store does its own way; the rest it asks of the store. */
interface StoreFaces {
  get?: CredentialStore['get'];
  set?: CredentialStore['set'];
  /** Its `opened`, asked at each read (the store drops it when it writes). */
  opened?: () => CredentialStore['opened'];
}

/** A plain object over `store`: its kind, reads, writes, listing and `opened`, each `faces` gives its own way; `path` when given. */
function storeView(store: CredentialStore, faces: StoreFaces): CredentialStore;
function storeView(store: CredentialStore, faces: StoreFaces, path: string): CredentialStore & { path: string };
function storeView(store: CredentialStore, faces: StoreFaces, path?: string): CredentialStore {
  const view: CredentialStore & { path?: string } = {
    // Asked each time: a keychain whose binding cannot load turns to the file at its first write (late-fallback.ts).
    get kind() {
      return store.kind;
    },
    get: faces.get ?? ((account) => store.get(account)),
    set: faces.set ?? ((account, secret) => store.set(account, secret)),
    delete: (account) => store.delete(account),
    list: () => store.list(),
    get opened() {
      return faces.opened ? faces.opened() : store.opened;
    },
  };
  if (path !== undefined) view.path = path;
  return Object.freeze(view);
}
