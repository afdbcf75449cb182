/**
 * The house rules of the module graph, checked on the source: nothing under
 * src/cli/commands/ imports program.ts, no command group imports another
 * group's modules, src/core knows nothing of src/cli, the emulator never
 * imports src/core, and there is no import circle among the imports that
 * exist at run time (static and dynamic; `import type` is erased).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SRC = join(ROOT, 'src');

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files(p, out);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
/** A whole `import type …`/`export type …` statement: erased at run time. */
const TYPE_ONLY = /^\s*(?:import|export)\s+type\s[^;]*;/gm;

/** Relative imports of a file, resolved to source paths under src/; `runtime` leaves out type-only ones. */
export function importsOf(file: string, text = readFileSync(file, 'utf8'), o: { runtime?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const m of (o.runtime ? text.replace(TYPE_ONLY, '') : text).matchAll(IMPORT)) {
    const target = resolve(dirname(file), m[1]!).replace(/\.js$/, '.ts');
    out.push(target);
  }
  return out;
}

export function graph(paths: readonly string[]): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of paths)
    g.set(
      f,
      importsOf(f, undefined, { runtime: true }).filter((t) => t !== f),
    );
  return g;
}

/** One import circle per strongly connected component with more than one module (Tarjan). */
export function circles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.map((c) => relative(ROOT, c)).sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const all = files(SRC);
const rel = (p: string) => relative(SRC, p);

describe('module graph', () => {
  it('has no import circle', () => {
    expect(circles(graph(all))).toEqual([]);
  });

  it('the circle check can fail', () => {
    const g = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    expect(circles(g)).toHaveLength(1);
    expect(importsOf('/x/y.ts', "import { a } from './a.js';\nconst b = await import('../b.js');\nexport type { C } from './c.js';")).toEqual([
      '/x/a.ts',
      '/b.ts',
      '/x/c.ts',
    ]);
    expect(importsOf('/x/y.ts', "import type { A } from './a.js';\nimport { type B, c } from './c.js';", { runtime: true })).toEqual(['/x/c.ts']);
  });

  it('nothing under src/cli/commands/ imports program.ts', () => {
    const bad = all.filter((f) => rel(f).startsWith('cli/commands/') && importsOf(f).some((t) => rel(t) === 'cli/program.ts'));
    expect(bad.map(rel)).toEqual([]);
  });

  it("no command group imports another group's modules", () => {
    const group = (p: string) => /^cli\/commands\/([^/]+)\//.exec(rel(p))?.[1];
    const bad: string[] = [];
    for (const f of all) {
      const mine = group(f);
      if (!mine) continue;
      for (const t of importsOf(f)) {
        const theirs = group(t);
        if (theirs && theirs !== mine) bad.push(`${rel(f)} -> ${rel(t)}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('src/core never imports src/cli; the emulator never imports src/core or src/cli', () => {
    const bad: string[] = [];
    for (const f of all) {
      const r = rel(f);
      for (const t of importsOf(f).map(rel)) {
        if (r.startsWith('core/') && t.startsWith('cli/')) bad.push(`${r} -> ${t}`);
        if (r.startsWith('emulator/') && (t.startsWith('core/') || t.startsWith('cli/'))) bad.push(`${r} -> ${t}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

/** Code without its comments: what a program importing the library can be shown. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/**
 * CLI advice: a `lanyard <group>` command, or a `LANYARD_*` variable to set or
 * pipe (naming the variable the library reads, as a source, is not advice).
 */
const ADVICE = [
  /\blanyard (auth|config|profile|echo|protocol|mailbox|health|api|exec|emulator|ratelimit|completion|doctor|help)\b/,
  // any command quoted as one: `lanyard doctor` slipped past the list above
  /`lanyard [a-z]/,
  /\b(set|unset|or|via|with|from) LANYARD_[A-Z_]+/i,
  // a variable with a value, in any wording: "(LANYARD_KEYCHAIN=required)", "LANYARD_KEYCHAIN=off works"
  /\bLANYARD_[A-Z_]+=/,
  /\(LANYARD_[A-Z_]+ or stdin\)/,
  // a command-line option to pass (the library takes options, not flags)
  /\b(pass|use|with|or|add) --[a-z][a-z-]+/i,
];

export function adviceLines(text: string): string[] {
  return withoutComments(text)
    .split('\n')
    .filter((l) => ADVICE.some((re) => re.test(l)));
}

describe('the library gives no CLI advice', () => {
  it('no line of src/core tells the reader to run a `lanyard …` command or set a LANYARD_* variable', () => {
    const bad = all.filter((f) => rel(f).startsWith('core/')).flatMap((f) => adviceLines(readFileSync(f, 'utf8')).map((l) => `${rel(f)}: ${l.trim()}`));
    expect(bad).toEqual([]);
  });

  it('the check finds advice, in code but not in comments', () => {
    expect(adviceLines("throw new X('no token', { hint: 'run `lanyard auth device`' });")).toHaveLength(1);
    expect(adviceLines("throw new X('the client secret is missing: set LANYARD_CLIENT_SECRET or pipe it on stdin');")).toHaveLength(1);
    expect(adviceLines('/** for `lanyard api --paginate` */\nconst a = 1; // see `lanyard auth status`')).toEqual([]);
    expect(adviceLines("if (env.LANYARD_TOKEN) return 'LANYARD_TOKEN';")).toEqual([]);
    expect(adviceLines("throw new X('no project: pass --project <id>');")).toHaveLength(1);
    expect(adviceLines("new X('locked', { hint: 'see `lanyard doctor`' });")).toHaveLength(1);
    expect(adviceLines("new X('the OS keychain is required (LANYARD_KEYCHAIN=required), and …');")).toHaveLength(1);
    expect(adviceLines("onFallback?.('the keychain is disabled (LANYARD_KEYCHAIN=off)');")).toHaveLength(1);
    expect(adviceLines("hint: 'LANYARD_KEYCHAIN=off works with the 0600 file alone'")).toHaveLength(1);
    expect(adviceLines("const ua = 'lanyard-cli/1.0';")).toEqual([]);
    expect(adviceLines("hint: 'run `lanyard frobnicate`'")).toHaveLength(1);
  });
});

/** A `case 'hosting':` (any service), or a table keyed by the service names: a switch over the services. */
export function serviceSwitches(text: string): string[] {
  const lines = withoutComments(text).split('\n');
  return lines.filter((l) => /\bcase '(hosting|echo|health|protocol|mailbox)'\s*:/.test(l) || /Record<(ServiceName|ExecService)\b/.test(l));
}

describe('one registry of services', () => {
  it('no switch over the services outside src/cli/services/registry.ts', () => {
    const bad = all
      .filter((f) => rel(f) !== 'cli/services/registry.ts')
      .flatMap((f) => serviceSwitches(readFileSync(f, 'utf8')).map((l) => `${rel(f)}: ${l.trim()}`));
    expect(bad).toEqual([]);
  });

  it('the check finds a switch', () => {
    expect(serviceSwitches("switch (s) {\n  case 'echo':\n    return 1;\n}")).toHaveLength(1);
    expect(serviceSwitches('const SIGN_IN: Record<ExecService, string> = {};')).toHaveLength(1);
    expect(serviceSwitches("// case 'echo':\nconst x = 1;")).toEqual([]);
  });
});

/**
 * Module-level mutable state: a top-level `let`/`var`, or a Map, Set, WeakMap
 * or WeakSet made at the top level that is not declared read-only. What a run
 * needs lives in its context (the output, the stores, the pager), so two runs
 * in one process (tests, the library) never share it.
 */
export function moduleState(text: string): string[] {
  return withoutComments(text)
    .split('\n')
    .filter(
      (l) => /^(?:export )?(?:let|var) /.test(l) || /^(?:export )?const \w+\b(?!\s*:\s*Readonly)\s*(?::[^=]+)?=\s*new (?:Map|Set|WeakMap|WeakSet)\b/.test(l),
    );
}

/** The exceptions, each with its reason; the registry of services is the one by design. */
const PROCESS_STATE: Readonly<Record<string, string>> = {
  'cli/shape/jq.ts': 'the jq WebAssembly runtime, loaded once per process like a module (no data of a run)',
  'cli/commands/mailbox/memory.ts': "the process's V8 flags and the gc() they expose (V8 flags are per process)",
  'cli/sea/main.ts': "a single-file executable's modules, loaded once per process (as Node's own module cache)",
  'cli/sea/addon.ts': 'the keychain addon of a single-file executable, loaded once per process (process.dlopen)',
};

describe('no module-level mutable state in src/cli', () => {
  it('only the registry and the listed process-wide exceptions keep state at module level', () => {
    const bad = all
      .filter((f) => rel(f).startsWith('cli/') && rel(f) !== 'cli/services/registry.ts' && !(rel(f) in PROCESS_STATE))
      .flatMap((f) => moduleState(readFileSync(f, 'utf8')).map((l) => `${rel(f)}: ${l.trim()}`));
    expect(bad).toEqual([]);
  });

  it('each listed exception still has state (else it leaves the list)', () => {
    for (const f of Object.keys(PROCESS_STATE)) expect(moduleState(readFileSync(join(SRC, f), 'utf8')), f).not.toEqual([]);
  });

  it('the check finds state, not constants', () => {
    expect(moduleState('let paging: Paging | undefined;')).toHaveLength(1);
    expect(moduleState('const shapers = new WeakMap<IO, JsonShaper>();')).toHaveLength(1);
    expect(moduleState("export const SEEN: Set<string> = new Set(['a']);")).toHaveLength(1);
    expect(moduleState("const METHODS: ReadonlySet<string> = new Set(['GET']);")).toEqual([]);
    expect(moduleState('  let n = 0;\nconst PAGED = Symbol();')).toEqual([]);
  });
});

describe('one home per credential', () => {
  it('the echo key and the health token are resolved from a profile in their service file only', () => {
    const homes: Record<string, string> = { 'resolveApiKey(': 'cli/services/echo/wiring.ts', 'resolveHealthToken(': 'cli/services/health/wiring.ts' };
    const bad: string[] = [];
    for (const f of all.filter((f) => rel(f).startsWith('cli/'))) {
      const code = withoutComments(readFileSync(f, 'utf8'));
      for (const [call, home] of Object.entries(homes)) if (code.includes(call) && rel(f) !== home) bad.push(`${rel(f)}: ${call}`);
    }
    expect(bad).toEqual([]);
  });
});

/** Relative paths under src/ of the modules a file imports (every import, type-only too). */
const importsRel = (f: string) => importsOf(f).map(rel);

describe('the slices', () => {
  it('src/core/http imports no service (a service adds its hook: the SSO mapping is the code host’s responseHooks entry)', () => {
    const services = ['hosting', 'echo', 'mailbox', 'health', 'protocol'];
    const bad = all
      .filter((f) => rel(f).startsWith('core/http/'))
      .flatMap((f) =>
        importsRel(f)
          .filter((t) => services.some((s) => t.startsWith(`core/${s}/`)))
          .map((t) => `${rel(f)} -> ${t}`),
      );
    expect(bad).toEqual([]);
  });

  it('the protocol slice does not reach into the hosting slice (the device poller is core/auth’s)', () => {
    const bad = all
      .filter((f) => rel(f).startsWith('core/protocol/'))
      .flatMap((f) =>
        importsRel(f)
          .filter((t) => t.startsWith('core/hosting/'))
          .map((t) => `${rel(f)} -> ${t}`),
      );
    expect(bad).toEqual([]);
  });

  it('src/core keeps no module-level Map or WeakMap (a mark such as "client proven" lives in a store object)', () => {
    const bad = all
      .filter((f) => rel(f).startsWith('core/'))
      .flatMap((f) =>
        withoutComments(readFileSync(f, 'utf8'))
          .split('\n')
          .filter((l) => /^(?:export )?(?:const|let|var) \w+\b[^=]*=\s*new (?:Weak)?Map\b/.test(l))
          .map((l) => `${rel(f)}: ${l.trim()}`),
      );
    expect(bad).toEqual([]);
  });

  it('src/core reads the time from the injected clock only (system-clock.ts is the one that reads the wall clock)', () => {
    const bad = all
      .filter((f) => rel(f).startsWith('core/') && rel(f) !== 'core/system-clock.ts')
      .flatMap((f) =>
        withoutComments(readFileSync(f, 'utf8'))
          .split('\n')
          .filter((l) => /\bDate\.now\(|\bnew Date\(\s*\)|\bperformance\.now\(/.test(l))
          .map((l) => `${rel(f)}: ${l.trim()}`),
      );
    expect(bad).toEqual([]);
  });
});

/** The service names, three or more of them in one line: a list of the services typed out again. */
export function serviceLists(text: string): string[] {
  return withoutComments(text)
    .split('\n')
    .filter((l) => (l.match(/'(hosting|echo|mailbox|health|protocol)'/g) ?? []).length >= 3);
}

/** Lists of services that are not the services of src/shared/services.ts, each with its reason. */
const OTHER_SERVICE_LISTS: Readonly<Record<string, string>> = {
  'cli/commands/emulator/index.ts': "the emulator's own services (with its admin API), not the client's",
  'cli/keychain-prefetch.ts': 'command groups that read credentials (group names, some of which are service names)',
};

describe('the service list is declared once', () => {
  it('src/shared/services.ts declares the services; src/core and src/cli derive their lists and types from it', () => {
    const bad = all
      .filter((f) => (rel(f).startsWith('core/') || rel(f).startsWith('cli/')) && !(rel(f) in OTHER_SERVICE_LISTS))
      .flatMap((f) => serviceLists(readFileSync(f, 'utf8')).map((l) => `${rel(f)}: ${l.trim()}`));
    expect(bad).toEqual([]);
  });

  it('the check finds a list typed out', () => {
    expect(serviceLists("type S = 'hosting' | 'echo' | 'health';")).toHaveLength(1);
    expect(serviceLists(".choices(['hosting', 'echo', 'mailbox', 'health', 'protocol'])")).toHaveLength(1);
    expect(serviceLists("const x: ServiceName = 'hosting';")).toEqual([]);
  });

  it('each listed exception still lists services (else it leaves the list)', () => {
    for (const f of Object.keys(OTHER_SERVICE_LISTS)) expect(serviceLists(readFileSync(join(SRC, f), 'utf8')), f).not.toEqual([]);
  });

  it('the registry has one entry per declared service, with an exec entry exactly for those with a credential', async () => {
    const [{ SERVICES }, { SERVICE_NAMES, SERVICE_TRAITS }] = await Promise.all([
      import('../../../src/cli/services/registry.js'),
      import('../../../src/shared/services.js'),
    ]);
    expect(Object.keys(SERVICES).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const s of SERVICE_NAMES) expect(!!SERVICES[s].exec, s).toBe(SERVICE_TRAITS[s].credential);
  });
});

/** Files that may pass the size limit for now, each with its reason. */
const OVERSIZE: Readonly<Record<string, string>> = {};

const MAX_LINES = 400;

describe('file sizes', () => {
  it(`no file of src/core or src/cli is over ${MAX_LINES} lines`, () => {
    const bad = all
      .filter((f) => (rel(f).startsWith('core/') || rel(f).startsWith('cli/')) && !(rel(f) in OVERSIZE))
      .map((f) => [rel(f), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > MAX_LINES)
      .map(([f, n]) => `${f}: ${n} lines`);
    expect(bad).toEqual([]);
  });

  it('each listed oversize file is still over the limit (else it leaves the list)', () => {
    for (const f of Object.keys(OVERSIZE)) expect(readFileSync(join(SRC, f), 'utf8').split('\n').length - 1, f).toBeGreaterThan(MAX_LINES);
  });
});

describe('src/cli is grouped', () => {
  it('at most 15 files stand loose at its root (terminal/, ports/, output/, errors/ hold the rest)', () => {
    const loose = readdirSync(join(SRC, 'cli')).filter((n) => n.endsWith('.ts') && statSync(join(SRC, 'cli', n)).isFile());
    expect(loose.length, loose.join(', ')).toBeLessThanOrEqual(15);
  });
});

/** Assignments into a context or an IO after it was made (`ctx.x = …`, `io.x ??= …`, a redefined or merged-into property). */
export function contextWrites(text: string): string[] {
  return withoutComments(text)
    .split('\n')
    .filter(
      (l) =>
        /\b(ctx|io|context|root)\.[A-Za-z]+\s*(=|\?\?=|\|\|=|&&=)[^=]/.test(l) ||
        /Object\.(defineProperty|defineProperties|assign)\((ctx|io|context|root)\b/.test(l) ||
        /\bnew Proxy\b|\.setOptionValue(WithSource)?\(/.test(l),
    );
}

const cliFiles = () => all.filter((f) => rel(f).startsWith('cli/'));

describe('a context nobody writes into', () => {
  it('no file of src/cli writes into a context, an IO or the parsed options, nor makes a Proxy', () => {
    const bad = cliFiles().flatMap((f) => contextWrites(readFileSync(f, 'utf8')).map((l) => `${rel(f)}: ${l.trim()}`));
    expect(bad).toEqual([]);
  });

  it('the check finds writes, Proxies and write-backs, not reads or comparisons', () => {
    expect(contextWrites('    ctx.lockWaitMs ??= 5;')).toHaveLength(1);
    expect(contextWrites('    ctx.output = await prepareOutput(ctx, action);')).toHaveLength(1);
    expect(contextWrites('  io.err = (t) => raw(t);')).toHaveLength(1);
    expect(contextWrites("  Object.defineProperty(io, 'stdout', { get });")).toHaveLength(1);
    expect(contextWrites('  const file = new Proxy(store, { get });')).toHaveLength(1);
    expect(contextWrites("  action.setOptionValue('json', true);")).toHaveLength(1);
    expect(contextWrites('  if (ctx.debug === true) io.out(x);')).toEqual([]);
    expect(contextWrites('  const w = ctx.clock.now();')).toEqual([]);
  });
});
