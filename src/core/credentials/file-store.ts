/**
 * The plain-file fallback store: one JSON file, mode 0600, written atomically
 * (temp file + rename) so a crash never leaves half a file.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CredentialStore } from '../deps.js';
import { CredentialStoreError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-file.js';
import { type CredentialLock, FileLock } from './lock.js';

export class FileCredentialStore implements CredentialStore {
  readonly kind = 'file';
  /** Every read-modify-write holds it, so parallel writers (other processes) lose nothing. */
  readonly lock: CredentialLock;
  constructor(
    readonly path: string,
    lock?: CredentialLock,
  ) {
    this.lock = lock ?? new FileLock(dirname(path));
  }

  static inDir(dir: string, lock?: CredentialLock): FileCredentialStore {
    return new FileCredentialStore(join(dir, 'credentials.json'), lock);
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
      return data as Record<string, string>;
    } catch {
      throw new CredentialStoreError(`${this.path} is corrupt; move it away and sign in again`);
    }
  }

  async #write(data: Record<string, string>): Promise<void> {
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
    await this.lock.withLock('credentials.json', async () => {
      const data = await this.#read();
      data[account] = secret;
      await this.#write(data);
    });
  }

  async delete(account: string): Promise<boolean> {
    return this.lock.withLock('credentials.json', async () => {
      const data = await this.#read();
      if (!(account in data)) return false;
      delete data[account];
      await this.#write(data);
      return true;
    });
  }

  async list(): Promise<string[]> {
    return Object.keys(await this.#read());
  }
}
