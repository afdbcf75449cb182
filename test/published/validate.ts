/**
 * Checks the emulator's answers against published API descriptions with Ajv:
 * OpenAPI 3.0 operations (the code host's from the npm package
 * @octokit/openapi, the vendored extracts of the others) and plain JSON
 * schemas. OpenAPI's `nullable` is Ajv's own; `discriminator` and `example`
 * are annotations here.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface OpenApi {
  paths: Record<string, Record<string, { responses?: Record<string, { $ref?: string; schema?: unknown; content?: Record<string, { schema?: unknown }> }> }>>;
  components?: Record<string, unknown>;
  /** Swagger 2.0 (the cloud's descriptions): schemas under `definitions`, a response's `schema` directly. */
  definitions?: Record<string, unknown>;
}

/**
 * Removes `discriminator` (Ajv's needs every branch to declare the property,
 * the published ones don't), and turns a `nullable` beside no `type` (an
 * `anyOf` or a `$ref` that may be null, which Ajv refuses) into an `anyOf`
 * that also takes null; a nullable `enum` takes null.
 */
function stripDiscriminators(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripDiscriminators);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (k !== 'discriminator') out[k] = stripDiscriminators(v);
  if (out.nullable === true && out.type === undefined) {
    const { nullable: _, ...rest } = out;
    return { anyOf: [rest, { type: 'null' }] };
  }
  // A nullable enum takes null too (Ajv checks `enum` as it stands).
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

export class PublishedDescription {
  readonly #ajv = addFormats(new Ajv({ strict: false, allErrors: true, validateFormats: true }));
  readonly #doc: OpenApi;
  readonly #id: string;
  readonly #cache = new Map<string, ValidateFunction>();

  constructor(doc: unknown, id: string) {
    this.#doc = doc as OpenApi;
    this.#id = id;
    this.#ajv.addSchema({
      $id: id,
      components: stripDiscriminators(this.#doc.components ?? {}),
      definitions: stripDiscriminators(this.#doc.definitions ?? {}),
    } as object);
    // Swagger's numeric formats, checked rather than ignored.
    this.#ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    this.#ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  }

  /** The path template of the description that `path` (no query) is an instance of. */
  template(method: string, path: string): string | undefined {
    const m = method.toLowerCase();
    return Object.keys(this.#doc.paths).find((t) => {
      if (!this.#doc.paths[t]![m]) return false;
      // `{resourceUri}` (x-ms-skip-url-encoding) spans several segments; other parameters one.
      const re = new RegExp(
        `^${t
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/\{resourceUri\}/g, '.+')
          .replace(/\{[^}]+\}/g, '[^/]+')}$`,
        'i',
      );
      return re.test(path);
    });
  }

  /** Errors of `body` against the response schema of `method path` for `status` (its JSON content), or a reason it has none. */
  check(method: string, path: string, status: number, body: unknown): string[] {
    const t = this.template(method, path);
    if (!t) return [`no operation ${method} ${path} in the description`];
    const responses = this.#doc.paths[t]![method.toLowerCase()]!.responses ?? {};
    let r = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!r) return [`${method} ${t} documents no ${status}`];
    r = this.#deref(r);
    const content = r.content ?? {};
    const type = Object.keys(content).find((c) => c.includes('json'));
    const schema = r.schema ?? (type ? content[type]!.schema : undefined);
    if (!schema) return body === undefined || body === '' ? [] : [`${method} ${t} ${status} documents no JSON body`];
    const key = `${t} ${method} ${status}`;
    let v = this.#cache.get(key);
    if (!v) {
      v = this.#ajv.compile(this.#localize(stripDiscriminators(schema)) as object);
      this.#cache.set(key, v);
    }
    return v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** A `$ref`'d response object (`#/components/responses/...`) itself. */
  #deref<T>(node: T): T {
    const ref = (node as { $ref?: string }).$ref;
    if (!ref) return node;
    let cur: unknown = this.#doc;
    for (const seg of ref.slice(2).split('/')) cur = (cur as Record<string, unknown>)[seg];
    return this.#deref(cur as T);
  }

  /** Points local references (`#/components/...`) at the registered document. */
  #localize(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.#localize(n));
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? this.#id + v : this.#localize(v);
    return out;
  }
}

/** A plain JSON schema validator (the protocol's schema, the extracts' error shapes). */
export function jsonSchemaValidator(): Ajv {
  return addFormats(new Ajv({ strict: false, allErrors: true }));
}
