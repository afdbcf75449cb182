/**
 * The plain-file fallback store: one JSON file, mode 0600, written atomically
 * (temp file + rename) so a crash never leaves half a file.
 *
 * The file also says which of its entries it took in the keychain's stead
 * (written while the keychain could not be used, not by choice): the
 * reserved entry {@link FALLBACK_ENTRY}, a list of account names, kept by a
 * store opened as the fallback (`{ fallback: true }`). A write by a store
 * chosen on purpose (insecure storage, the keychain disabled) leaves an
 * entry's mark as it is; a delete removes it. What the mark means for reads
 * over the keychain: file-over-keychain.ts. Releases before the mark list the
 * reserved entry among the accounts, and no command of theirs reads it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CredentialStore } from '../deps.js';
import { CredentialStoreError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-file.js';
import { type CredentialLock, FileLock } from './lock.js';

/** The reserved entry of credentials.json that lists the accounts the file took in the keychain's stead. */
export const FALLBACK_ENTRY = 'lanyard:keychain-fallback';

/** What the file holds: its entries, and which of them it took in the keychain's stead. */
export interface FileContents {
  readonly entries: Record<string, string>;
  /** Accounts of `entries` written while the keychain could not be used. */
  readonly fallback: ReadonlySet<string>;
}

export interface FileStoreOptions {
  /** Opened because the keychain could not be used: each write marks its entry as taken in the keychain's stead. */
  fallback?: boolean;
}

export class FileCredentialStore implements CredentialStore {
  readonly kind = 'file';
  /** Every read-modify-write holds it, so parallel writers (other processes) lose nothing. */
  readonly lock: CredentialLock;
  /** Opened as the keychain's fallback (see the module's comment). */
  readonly fallback: boolean;
  constructor(
    readonly path: string,
    lock?: CredentialLock,
    o: FileStoreOptions = {},
  ) {
    this.lock = lock ?? new FileLock(dirname(path));
    this.fallback = o.fallback === true;
  }

  static inDir(dir: string, lock?: CredentialLock, o?: FileStoreOptions): FileCredentialStore {
    return new FileCredentialStore(join(dir, 'credentials.json'), lock, o);
  }

  async #read(): Promise<Record<string, string>> {
    return this.snapshot();
  }

  /**
   * Every entry as the file holds it now, read synchronously (a small file):
   * for views that must answer at once (`opened`, see file-over-keychain.ts).
   * Throws CredentialStoreError for a file that cannot be read or is corrupt.
   */
  snapshot(): Record<string, string> {
    return this.contents().entries;
  }

  /** `snapshot()`, with the accounts the file took in the keychain's stead. */
  contents(): FileContents {
    const { [FALLBACK_ENTRY]: marks, ...entries } = this.#parse();
    const fallback = new Set(Array.isArray(marks) ? marks.filter((a): a is string => typeof a === 'string' && Object.hasOwn(entries, a)) : []);
    return { entries: entries as Record<string, string>, fallback };
  }

  #parse(): Record<string, unknown> {
    let text: string;
    try {
      // Sync: a small file, and node:fs/promises (≈ 5 ms to load) stays off the start-up path of reads.
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new CredentialStoreError(`cannot read ${this.path}: ${(err as Error).message}`);
    }
    try {
      const data = JSON.parse(text) as unknown;
      if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('not an object');
      return data as Record<string, unknown>;
    } catch {
      throw new CredentialStoreError(`${this.path} is corrupt; move it away and sign in again`);
    }
  }

  async #write({ entries, fallback }: FileContents): Promise<void> {
    const data = fallback.size ? { ...entries, [FALLBACK_ENTRY]: [...fallback] } : entries;
    try {
      await writeFileAtomic(this.path, JSON.stringify(data, null, 2) + '\n', 0o600);
    } catch (err) {
      throw new CredentialStoreError(`cannot write ${this.path}: ${(err as Error).message}`);
    }
  }

  async get(account: string): Promise<string | undefined> {
    return (await this.#read())[account];
  }

  async set(account: string, secret: string): Promise<void> {
    if (account === FALLBACK_ENTRY) throw new CredentialStoreError(`${FALLBACK_ENTRY} is reserved`);
    await this.lock.withLock('credentials.json', async () => {
      const { entries, fallback } = this.contents();
      entries[account] = secret;
      // A store chosen on purpose leaves the mark as it is: a marked copy stays newer than the keychain's.
      await this.#write({ entries, fallback: this.fallback ? new Set([...fallback, account]) : fallback });
    });
  }

  async delete(account: string): Promise<boolean> {
    return this.lock.withLock('credentials.json', async () => {
      const { entries, fallback } = this.contents();
      if (!Object.hasOwn(entries, account)) return false;
      delete entries[account];
      await this.#write({ entries, fallback: new Set([...fallback].filter((a) => a !== account)) });
      return true;
    });
  }

  /**
   * Takes out of the file, under its lock, each of `copies` (account → the
   * value seen) that the file still holds unchanged, with its mark: a copy
   * written since (a newer one) stays. Written once, not at all when nothing
   * is taken. Answers the accounts taken out.
   */
  async takeOut(copies: ReadonlyMap<string, string>): Promise<string[]> {
    if (!copies.size) return [];
    return this.lock.withLock('credentials.json', async () => {
      const { entries, fallback } = this.contents();
      const gone = [...copies].filter(([a, v]) => Object.hasOwn(entries, a) && entries[a] === v).map(([a]) => a);
      if (!gone.length) return [];
      for (const a of gone) delete entries[a];
      await this.#write({ entries, fallback: new Set([...fallback].filter((a) => !gone.includes(a))) });
      return gone;
    });
  }

  async list(): Promise<string[]> {
    return Object.keys(await this.#read());
  }
}
