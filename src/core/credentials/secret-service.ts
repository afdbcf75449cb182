/**
 * Reading the keychain's entries from the Secret Service in plain
 * JavaScript, over one D-Bus connection of our own (dbus-connection.ts):
 *
 * 1. in one write with the handshake: `OpenSession("plain")` and
 *    `SearchItems({service})` (and, for shell completion, the default
 *    collection's `Locked`);
 * 2. in one write once they answer: `GetSecrets(items)` and each item's
 *    `Attributes`.
 *
 * Two round trips through the bus, against the native binding's 6–8 on a
 * thread of its own (its own connection, a Diffie-Hellman exchange, then one
 * call per item); the binding is not needed for reading at all.
 *
 * Why the `plain` algorithm rather than `dh-ietf1024-sha256-aes128-cbc-pkcs7`:
 * the secret crosses a unix socket that only this user's processes can
 * connect to, to a bus that lets only this user (or root) monitor it, and
 * any process that could see it there can ask the Secret Service for it
 * directly; the DH session protects nothing from them. It costs 8–10 ms of
 * CPU per run in Node (loading `node:crypto`, the key pair, the derivation;
 * `createDiffieHellman` with the RFC 2409 group alone checks the prime for
 * ≈ 38 ms). The spec asks every service to support `plain`; libsecret and
 * the keyring clients of Python and Rust fall back to it.
 *
 * Whatever this reader does not expect — locked items (reading them needs an
 * unlock, which is the binding's business), an error answered by the
 * service, a session that is not plain — is handed back as `binding`: the
 * caller asks the native binding, as it did before this reader existed, so
 * those cases keep their behaviour and messages. A bus or service that
 * cannot be reached or does not answer in time is `unavailable`, and the
 * binding is never called (see dbus-connection.ts for why).
 */
import { BusUnavailable, type BusConnection, openBus, type Reply, unixSocketOf } from './dbus-connection.js';
import type { DBusValue, Variant } from './dbus-wire.js';
import type { KeychainEntry } from './keychain-binding.js';

/** What reading gave: the entries; or the keychain is unavailable (why); or the native binding must decide (why). */
export type SecretServiceRead = { kind: 'entries'; entries: KeychainEntry[] } | { kind: 'unavailable'; reason: string } | { kind: 'binding'; why: string };

export interface SecretServiceReadOptions {
  /** The session bus address (DBUS_SESSION_BUS_ADDRESS). */
  address: string;
  uid: number;
  /** The whole read's time limit. */
  timeoutMs: number;
  /** The keychain service whose items are read (attribute `service`). */
  service: string;
  /** Read only from a default collection known to be unlocked (shell completion): nothing may show an unlock prompt. */
  unlockedOnly?: boolean;
  /** Called once the last request is written: from then on the read only waits for the service. */
  onSent?: () => void;
}

const SECRETS = 'org.freedesktop.secrets';
const SERVICE_PATH = '/org/freedesktop/secrets';
const PROPERTIES = 'org.freedesktop.DBus.Properties';

/** Reads every entry of `o.service` (see the module's comment). Never rejects. */
export async function readSecretService(o: SecretServiceReadOptions): Promise<SecretServiceRead> {
  const path = unixSocketOf(o.address);
  if (!path) return { kind: 'binding', why: 'the session bus is not on a unix socket' };
  const bus = openBus(path, o.uid, o.timeoutMs);
  try {
    return await conversation(bus, o);
  } catch (err) {
    if (err instanceof BusUnavailable) return { kind: 'unavailable', reason: err.message };
    return { kind: 'binding', why: `an unexpected answer (${(err as Error).message})` };
  } finally {
    bus.close();
  }
}

async function conversation(bus: BusConnection, o: SecretServiceReadOptions): Promise<SecretServiceRead> {
  const service = (member: string, signature: string, args: DBusValue[]) =>
    bus.call({ path: SERVICE_PATH, iface: 'org.freedesktop.Secret.Service', member, destination: SECRETS, signature, args });
  const property = (path: string, iface: string, name: string) =>
    bus.call({ path, iface: PROPERTIES, member: 'Get', destination: SECRETS, signature: 'ss', args: [iface, name] });
  const locked = o.unlockedOnly ? property(`${SERVICE_PATH}/aliases/default`, 'org.freedesktop.Secret.Collection', 'Locked') : undefined;
  const session = service('OpenSession', 'sv', ['plain', { sig: 's', value: '' }]);
  const search = service('SearchItems', 'a{ss}', [[['service', o.service]]]);
  if (locked) {
    const answer = await locked;
    const value = answer.ok ? variantOf(answer.body[0], 'b') : undefined;
    if (value !== false) return { kind: 'unavailable', reason: value ? 'the keychain is locked' : 'cannot tell whether the keychain is unlocked' };
  }
  const [opened, found] = await Promise.all([session, search]);
  if (!opened.ok || !found.ok) return refused(opened.ok ? found : opened);
  const sessionPath = opened.body[1];
  const [unlocked, lockedItems] = found.body as [string[], string[]];
  if (typeof sessionPath !== 'string' || !Array.isArray(unlocked) || !Array.isArray(lockedItems)) throw new Error('OpenSession or SearchItems');
  if (lockedItems.length > 0) return { kind: 'binding', why: `${lockedItems.length} of the items are locked` };
  if (unlocked.length === 0) return { kind: 'entries', entries: [] };
  const secrets = service('GetSecrets', 'aoo', [unlocked, sessionPath]);
  const attributes = unlocked.map((item) => property(item, 'org.freedesktop.Secret.Item', 'Attributes'));
  o.onSent?.();
  const [values, ...attrs] = await Promise.all([secrets, ...attributes]);
  if (!values!.ok) return refused(values!);
  const refusedAttrs = attrs.find((a) => !a.ok);
  if (refusedAttrs) return refused(refusedAttrs);
  return { kind: 'entries', entries: entriesOf(unlocked, values!.body[0], attrs) };
}

/** The service answered with an error: left to the binding, which says what it says about it. */
function refused(reply: Reply): SecretServiceRead {
  return { kind: 'binding', why: reply.ok ? 'no answer' : `${reply.errorName}: ${reply.message}` };
}

/** The value of a variant of type `sig`, else undefined. */
function variantOf(v: DBusValue | undefined, sig: string): DBusValue | undefined {
  return v !== undefined && typeof v === 'object' && 'sig' in v && (v as Variant).sig === sig ? (v as Variant).value : undefined;
}

/**
 * The entries, in the order the search listed the items: each item's
 * `username` attribute (items without one are skipped, as the binding does)
 * and its secret as UTF-8. A secret missing from GetSecrets' answer, or one
 * not sent plain, is an unexpected answer.
 */
function entriesOf(items: string[], secrets: DBusValue | undefined, attrs: Reply[]): KeychainEntry[] {
  const byItem = new Map((Array.isArray(secrets) ? secrets : []) as Array<[string, [string, Buffer, Buffer, string]]>);
  const entries: KeychainEntry[] = [];
  items.forEach((item, k) => {
    const attributes = variantOf((attrs[k] as Reply & { ok: true }).body[0], 'a{ss}') as Array<[string, string]> | undefined;
    if (!attributes) throw new Error(`the attributes of ${item}`);
    const account = attributes.find(([key]) => key === 'username')?.[1];
    const secret = byItem.get(item);
    if (!secret || !Buffer.isBuffer(secret[2]) || !Buffer.isBuffer(secret[1]) || secret[1].length > 0) throw new Error(`the secret of ${item}`);
    if (account !== undefined) entries.push({ account, password: secret[2].toString('utf8') });
  });
  return entries;
}
