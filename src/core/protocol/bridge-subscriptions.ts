/**
 * What a host with the handshake hears of a 2026-07-28 server unasked: its
 * lists changing and the resources it subscribed to. That revision has no
 * `resources/subscribe` and no GET stream: a client names what it wants to
 * hear of in a `subscriptions/listen` request, whose answer is a stream the
 * server first acknowledges (with what it honours) and then carries
 * `notifications/…/list_changed` and `notifications/resources/updated` on.
 * The bridge keeps one such stream: for the lists whose `listChanged` the
 * server's capabilities promise (from the host's initialize on) and for the
 * resources the host subscribed to — a subscribe or unsubscribe opens it
 * again with the new set, answered once the server acknowledged it; the
 * notifications go to the host as they come. A stream that the server ends or
 * that breaks is opened again after a second, up to MAX_REOPENS times in a
 * row (stderr says so each time); after that they are dropped.
 */
import { LanyardError } from '../errors.js';

/** Streams opened again in a row, with no acknowledgement between, before the subscriptions are given up. */
export const MAX_REOPENS = 5;
const REOPEN_DELAY_MS = 1000;

export interface ListenPorts {
  /** Sends `subscriptions/listen` with these params; settles when the stream ends (rejects on an error answer). */
  listen(params: unknown, signal: AbortSignal): Promise<void>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  notify(line: string): void;
}

type Waiter = { resolve(honoured: readonly unknown[]): void; reject(err: unknown): void };

export class ListenedResources {
  readonly #uris = new Set<string>();
  /** The list_changed notifications asked for (`toolsListChanged`, …: true). */
  #lists: Record<string, true> = {};
  /** The stream open now. */
  #ac?: AbortController;
  /** Subscribes and unsubscribes waiting for the server to acknowledge the stream opened for them. */
  #waiters: Waiter[] = [];
  #reopens = 0;
  readonly #closed = new AbortController();

  constructor(private readonly ports: ListenPorts) {}

  /** Listens for the list changes the server's capabilities promise (its `tools.listChanged`, …); none: nothing. */
  lists(capabilities: unknown): void {
    const caps = (capabilities ?? {}) as Record<string, { listChanged?: unknown } | undefined>;
    this.#lists = {};
    for (const kind of ['tools', 'prompts', 'resources']) if (caps[kind]?.listChanged === true) this.#lists[`${kind}ListChanged`] = true;
    this.#restart();
  }

  /** The server's `notifications/subscriptions/acknowledged` on the stream. */
  acknowledged(params: unknown): void {
    const honoured = (params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications?.resourceSubscriptions;
    this.#reopens = 0;
    for (const w of this.#waiters.splice(0)) w.resolve(Array.isArray(honoured) ? honoured : []);
  }

  /** Subscribes to `uri`: resolved once the server listens for it, rejected when it will not. */
  async subscribe(uri: string): Promise<void> {
    if (this.#uris.has(uri)) return;
    this.#uris.add(uri);
    try {
      const honoured = await this.#change();
      if (!honoured.includes(uri))
        throw new LanyardError('protocol_error', `the server does not report updates of ${uri} (not among the resources it listens for)`);
    } catch (err) {
      this.#uris.delete(uri);
      if (!this.#ac) this.#restart();
      throw err;
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    if (!this.#uris.delete(uri)) return;
    await this.#change();
  }

  /** The host has gone: the stream is closed. */
  close(): void {
    this.#uris.clear();
    this.#lists = {};
    this.#closed.abort();
    this.#restart();
  }

  /** Opens the stream again for the resources now subscribed; what the server then honours (none subscribed: none). */
  #change(): Promise<readonly unknown[]> {
    this.#restart();
    if (!this.#ac) return Promise.resolve([]);
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  #restart(): void {
    this.#ac?.abort();
    this.#ac = undefined;
    if ((!this.#uris.size && !Object.keys(this.#lists).length) || this.#closed.signal.aborted) return;
    const ac = new AbortController();
    this.#ac = ac;
    const ended = (err: unknown) => void this.#ended(ac, err);
    const notifications = { ...this.#lists, ...(this.#uris.size ? { resourceSubscriptions: [...this.#uris] } : {}) };
    this.ports.listen({ notifications }, ac.signal).then(() => ended(new LanyardError('protocol_error', 'the server ended the stream')), ended);
  }

  /** A stream that ended by itself: its waiters get the error; else it is opened again after a second. */
  async #ended(ac: AbortController, err: unknown): Promise<void> {
    if (this.#ac !== ac) return;
    this.#ac = undefined;
    const reason = err instanceof Error ? err.message : String(err);
    const waiting = this.#waiters.splice(0);
    if (waiting.length) {
      for (const w of waiting) w.reject(err);
      return;
    }
    if (++this.#reopens > MAX_REOPENS) {
      this.ports.notify(`resource subscriptions and list changes dropped: the subscriptions/listen stream ended ${MAX_REOPENS + 1} times in a row (${reason})`);
      this.#uris.clear();
      this.#lists = {};
      return;
    }
    this.ports.notify(`the subscriptions/listen stream for the host (list changes, resource subscriptions) ended (${reason}); listening again in 1 s`);
    try {
      await this.ports.sleep(REOPEN_DELAY_MS, this.#closed.signal);
    } catch {
      return;
    }
    if (!this.#ac) this.#restart();
  }
}
