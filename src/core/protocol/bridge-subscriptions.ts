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
 * notifications go to the host as they come. Only the acknowledgement of the
 * stream open now counts (each stream has its own request id, which the
 * server stamps on its messages as `_meta`'s subscriptionId — or, when it
 * does not, the id of the request whose answer stream carried it): a late one
 * of a stream already replaced says nothing of the new set. A stream that the
 * server ends or that breaks is opened again after a second, up to
 * MAX_REOPENS times in a row (stderr says so each time), also when a
 * subscribe or unsubscribe was waiting on it (a subscribe is then refused, an
 * unsubscribe done); after that they are dropped. A host request cancelled
 * while it waits stops waiting; the stream carries on for the others.
 */
import { LanyardError } from '../errors.js';

/** Streams opened again in a row, with no acknowledgement between, before the subscriptions are given up. */
export const MAX_REOPENS = 5;
const REOPEN_DELAY_MS = 1000;
/** Where a server names the listen request a message of its stream belongs to. */
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

export interface ListenPorts {
  /** Sends `subscriptions/listen` with these params as request `id`; settles when the stream ends (rejects on an error answer). */
  listen(params: unknown, signal: AbortSignal, id: string): Promise<void>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  notify(line: string): void;
}

type Waiter = { resolve(honoured: readonly unknown[]): void; reject(err: unknown): void };

export class ListenedResources {
  readonly #uris = new Set<string>();
  /** The list_changed notifications asked for (`toolsListChanged`, …: true). */
  #lists: Record<string, true> = {};
  /** The stream open now, and the id of its request. */
  #ac?: AbortController;
  #id = '';
  #seq = 0;
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

  /**
   * The server's `notifications/subscriptions/acknowledged`, which came on the
   * answer stream of the request `stream` (its `_meta` subscriptionId, when
   * the server stamps one, names the request too).
   */
  acknowledged(params: unknown, stream: string | number | undefined): void {
    const p = params as { notifications?: { resourceSubscriptions?: unknown }; _meta?: Record<string, unknown> } | undefined;
    const from = p?._meta?.[SUBSCRIPTION_ID] ?? stream;
    // A stream already closed (replaced by a change, or ended): its acknowledgement is of a set no longer asked for.
    if (!this.#ac || from !== this.#id) return;
    const honoured = p?.notifications?.resourceSubscriptions;
    this.#reopens = 0;
    for (const w of this.#waiters.splice(0)) w.resolve(Array.isArray(honoured) ? honoured : []);
  }

  /**
   * Subscribes to `uri`: resolved once the server listens for it, rejected
   * when it will not, when the stream breaks first (it is opened again
   * without `uri`) or when `signal` aborts.
   */
  async subscribe(uri: string, signal?: AbortSignal): Promise<void> {
    if (this.#uris.has(uri)) {
      // Asked for already: answered with the acknowledgement still awaited, if any (not before the server says).
      if (!this.#waiters.length) return;
      if (!(await this.#wait(signal)).includes(uri) && this.#ac) throw notHonoured(uri);
      return;
    }
    this.#uris.add(uri);
    try {
      const honoured = await this.#change(signal);
      // (Unsubscribed meanwhile: nothing left to listen for.)
      if (!honoured.includes(uri) && this.#uris.has(uri)) throw notHonoured(uri);
    } catch (err) {
      this.#uris.delete(uri);
      throw err;
    }
  }

  /** Unsubscribes from `uri`: resolved once the stream without it is acknowledged, or once it broke (opened again without `uri`); rejected when `signal` aborts. */
  async unsubscribe(uri: string, signal?: AbortSignal): Promise<void> {
    if (!this.#uris.delete(uri)) return;
    await this.#change(signal).catch((err: unknown) => {
      if (signal?.aborted) throw err;
    });
  }

  /** The host has gone: the stream is closed, and a subscribe or unsubscribe still waiting on it is refused. */
  close(): void {
    this.#uris.clear();
    this.#lists = {};
    this.#closed.abort();
    this.#restart();
    const gone = new LanyardError('protocol_error', 'the bridge is closing: no more subscriptions are listened for');
    for (const w of this.#waiters.splice(0)) w.reject(gone);
  }

  /** Opens the stream again for the resources now subscribed; what the server then honours (none subscribed: none). */
  #change(signal?: AbortSignal): Promise<readonly unknown[]> {
    signal?.throwIfAborted();
    this.#restart();
    if (!this.#ac) {
      // Nothing is listened for any more: those waiting for the stream just closed were unsubscribed meanwhile.
      for (const w of this.#waiters.splice(0)) w.resolve([]);
      return Promise.resolve([]);
    }
    return this.#wait(signal);
  }

  /** The acknowledgement of the stream open now: what it honours. */
  #wait(signal?: AbortSignal): Promise<readonly unknown[]> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const waiter: Waiter = {
        resolve: (honoured) => (settle(), resolve(honoured)),
        reject: (err) => (settle(), reject(err)),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #restart(): void {
    this.#ac?.abort();
    this.#ac = undefined;
    if ((!this.#uris.size && !Object.keys(this.#lists).length) || this.#closed.signal.aborted) return;
    const ac = new AbortController();
    this.#ac = ac;
    this.#id = `lanyard-listen-${++this.#seq}`;
    const ended = (err: unknown) => void this.#ended(ac, err);
    const notifications = { ...this.#lists, ...(this.#uris.size ? { resourceSubscriptions: [...this.#uris] } : {}) };
    this.ports.listen({ notifications }, ac.signal, this.#id).then(() => ended(new LanyardError('protocol_error', 'the server ended the stream')), ended);
  }

  /** A stream that ended by itself: its waiters get the error, and it is opened again after a second. */
  async #ended(ac: AbortController, err: unknown): Promise<void> {
    if (this.#ac !== ac) return;
    this.#ac = undefined;
    const reason = err instanceof Error ? err.message : String(err);
    // A subscribe waiting takes its resource out of the set (its catch) before the stream is opened again.
    for (const w of this.#waiters.splice(0)) w.reject(err);
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

/** The refusal of a subscribe the server's acknowledgement leaves out. */
function notHonoured(uri: string): LanyardError {
  return new LanyardError('protocol_error', `the server does not report updates of ${uri} (not among the resources it listens for)`);
}
