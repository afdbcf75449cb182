/**
 * The protocol server's resources and prompts, at every revision it speaks
 * (the fixtures are listed in docs/protocol-servers.md):
 *
 * - resources: `emulator://docs/readme` (Markdown), `emulator://notes/today`
 *   (plain text that the admin verb `update-resource` changes, so
 *   subscribers are told; it may change the readme too), `emulator://images/pixel.png` (a blob), and the
 *   template `emulator://users/{login}` (JSON for `ada` and `grace`); an
 *   unknown URI is "Resource not found" with the URI in `data`: -32002
 *   before 2026-07-28, -32602 from then on (SEP-2164);
 * - prompts: `greeting` (arguments `name`, required, and `style`, `formal`
 *   or `casual`) and `summarize` (argument `uri`: the resource embedded in
 *   the prompt's messages); a missing required argument is -32602;
 * - from 2025-06-18 on, resources, templates, prompts and their arguments
 *   carry a `title` (2025-03-26 has none).
 *
 * Who is told of an update (a session's `resources/subscribe`, a stateless
 * `subscriptions/listen` stream) is the server's business: `onUpdate`.
 */
import type { EmuRevision } from './state.js';

/** JSON-RPC error of a resource that does not exist: the protocol's own code, then (2026-07-28, SEP-2164) Invalid Params. */
export const resourceNotFoundCode = (revision: EmuRevision) => (revision === '2026-07-28' ? -32602 : -32002);
export const NOTES_URI = 'emulator://notes/today';
const README_URI = 'emulator://docs/readme';
const INITIAL_NOTES = 'No notes yet. (The admin verb update-resource changes this text and notifies subscribers.)';
/** A 1×1 transparent PNG. */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const README = [
  '# The emulated protocol server',
  '',
  'Tools: echo, time, confirm (and echo_region at 2026-07-28).',
  'Resources: this readme, emulator://notes/today (subscribe to it), emulator://images/pixel.png, emulator://users/{login}.',
  'Prompts: greeting (name, style), summarize (uri).',
  '',
].join('\n');
const USERS: Readonly<Record<string, string>> = { ada: 'Ada Lovelace', grace: 'Grace Hopper' };

type Fail = { error: { code: number; message: string; data?: unknown } };
type Ok = { result: Record<string, unknown> };

interface Described {
  name: string;
  title: string;
  description: string;
}
interface ResourceFixture extends Described {
  uri: string;
  mimeType: string;
}

const RESOURCES: readonly ResourceFixture[] = [
  { uri: README_URI, name: 'readme', title: 'About this server', description: 'What the emulated server offers.', mimeType: 'text/markdown' },
  { uri: NOTES_URI, name: 'notes', title: 'Today’s notes', description: 'Plain text that changes (subscribe to be told).', mimeType: 'text/plain' },
  { uri: 'emulator://images/pixel.png', name: 'pixel', title: 'A pixel', description: 'A 1×1 PNG (binary contents).', mimeType: 'image/png' },
];

const TEMPLATES = [
  {
    uriTemplate: 'emulator://users/{login}',
    name: 'user',
    title: 'A user',
    description: 'A user of the emulator by login (ada, grace), as JSON.',
    mimeType: 'application/json',
  },
];

interface PromptFixture extends Described {
  arguments: Array<Described & { required: boolean }>;
}

const PROMPTS: readonly PromptFixture[] = [
  {
    name: 'greeting',
    title: 'Greeting',
    description: 'A greeting for someone, formal or casual.',
    arguments: [
      { name: 'name', title: 'Name', description: 'Who to greet.', required: true },
      { name: 'style', title: 'Style', description: 'formal or casual (default casual).', required: false },
    ],
  },
  {
    name: 'summarize',
    title: 'Summarize a resource',
    description: 'Asks for a summary of a resource of this server, embedded in the prompt.',
    arguments: [{ name: 'uri', title: 'Resource URI', description: 'The resource to summarize, e.g. emulator://docs/readme.', required: true }],
  },
];

/** `title` is a field from 2025-06-18 on. */
const titled = (revision: EmuRevision) => revision !== '2025-03-26';
function withoutTitle<T extends { title?: string }>(o: T, revision: EmuRevision): Omit<T, 'title'> | T {
  if (titled(revision)) return o;
  const { title: _t, ...rest } = o;
  return rest;
}

const invalid = (message: string): Fail => ({ error: { code: -32602, message: `Invalid params: ${message}` } });

export class ProtocolContent {
  #notes = INITIAL_NOTES;
  #readme = README;
  readonly #listeners = new Set<(uri: string) => void>();

  reset(): void {
    this.#notes = INITIAL_NOTES;
    this.#readme = README;
  }

  /** Is told of every update of a resource; returns the way to stop. */
  onUpdate(listener: (uri: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Whether `uri` names a resource this server has (a listed one or an instance of a template). */
  exists(uri: string): boolean {
    return 'result' in this.read(uri, '2025-11-25');
  }

  /** The admin verb `update-resource`: new text for the notes (by default) or the readme, and everyone subscribed is told. */
  update(uri: unknown, text: unknown): { uri: string; text: string } {
    if (uri !== undefined && uri !== NOTES_URI && uri !== README_URI) throw new Error(`only ${NOTES_URI} and ${README_URI} can be updated`);
    if (typeof text !== 'string') throw new Error('text must be a string');
    const changed = uri === README_URI ? README_URI : NOTES_URI;
    if (changed === README_URI) this.#readme = text;
    else this.#notes = text;
    for (const l of [...this.#listeners]) l(changed);
    return { uri: changed, text };
  }

  resourcesList(revision: EmuRevision): Ok {
    return { result: { resources: RESOURCES.map((r) => withoutTitle(r, revision)) } };
  }

  templatesList(revision: EmuRevision): Ok {
    return { result: { resourceTemplates: TEMPLATES.map((t) => withoutTitle(t, revision)) } };
  }

  read(uri: unknown, revision: EmuRevision): Ok | Fail {
    if (typeof uri !== 'string' || !uri) return invalid('resources/read needs params.uri (string)');
    const fixture = RESOURCES.find((r) => r.uri === uri);
    const one = (content: Record<string, unknown>): Ok => ({ result: { contents: [{ uri, ...content }] } });
    if (fixture?.name === 'readme') return one({ mimeType: fixture.mimeType, text: this.#readme });
    if (fixture?.name === 'notes') return one({ mimeType: fixture.mimeType, text: this.#notes });
    if (fixture?.name === 'pixel') return one({ mimeType: fixture.mimeType, blob: PIXEL_PNG });
    const login = /^emulator:\/\/users\/([a-z]+)$/.exec(uri)?.[1];
    if (login && USERS[login]) return one({ mimeType: 'application/json', text: JSON.stringify({ login, name: USERS[login] }) });
    return { error: { code: resourceNotFoundCode(revision), message: 'Resource not found', data: { uri } } };
  }

  promptsList(revision: EmuRevision): Ok {
    return {
      result: {
        prompts: PROMPTS.map((p) => ({ ...withoutTitle(p, revision), arguments: p.arguments.map((a) => withoutTitle(a, revision)) })),
      },
    };
  }

  getPrompt(name: unknown, rawArgs: unknown, revision: EmuRevision): Ok | Fail {
    const prompt = PROMPTS.find((p) => p.name === name);
    if (!prompt) return invalid(`unknown prompt ${String(name)}`);
    const args = (rawArgs ?? {}) as Record<string, unknown>;
    if (typeof args !== 'object' || Array.isArray(args)) return invalid('arguments must be an object of strings');
    for (const a of prompt.arguments) {
      const v = args[a.name];
      if (v === undefined && a.required) return invalid(`missing required argument ${a.name}`);
      if (v !== undefined && typeof v !== 'string') return invalid(`argument ${a.name} must be a string`);
    }
    const text = (t: string) => ({ role: 'user', content: { type: 'text', text: t } });
    if (prompt.name === 'greeting') {
      const style = (args.style as string | undefined) ?? 'casual';
      if (style !== 'formal' && style !== 'casual') return invalid('style must be formal or casual');
      const line = style === 'formal' ? `Please write a formal greeting addressed to ${args.name}.` : `Say hi to ${args.name} in one friendly line.`;
      return { result: { description: `A ${style} greeting for ${args.name}`, messages: [text(line)] } };
    }
    const read = this.read(args.uri, revision);
    if ('error' in read) return invalid(`no resource ${String(args.uri)}`);
    const [content] = read.result.contents as Array<Record<string, unknown>>;
    return {
      result: {
        description: `A summary of ${args.uri}`,
        messages: [text('Summarize the resource below in three sentences.'), { role: 'user', content: { type: 'resource', resource: content } }],
      },
    };
  }

  /**
   * One method of resources or prompts (the subscriptions aside), or
   * undefined when `method` is none of them.
   */
  dispatch(method: string, p: Record<string, unknown>, revision: EmuRevision): Ok | Fail | undefined {
    switch (method) {
      case 'resources/list':
        return this.resourcesList(revision);
      case 'resources/templates/list':
        return this.templatesList(revision);
      case 'resources/read':
        return this.read(p.uri, revision);
      case 'prompts/list':
        return this.promptsList(revision);
      case 'prompts/get':
        return this.getPrompt(p.name, p.arguments, revision);
      default:
        return undefined;
    }
  }
}

/** The capabilities of a server with these resources and prompts (besides its tools). */
export const CONTENT_CAPABILITIES = { resources: { subscribe: true, listChanged: false }, prompts: { listChanged: false } };
