/**
 * The Python interpreter of the interop tests' virtual environment, which
 * .ci/run makes (node_modules/.cache/lanyard-py, from test/interop-py/
 * requirements.txt; LANYARD_PY names another interpreter), and a runner for
 * the small scripts beside this file. Without it the tests fail in CI
 * (CI=true) and are skipped elsewhere with a message that says how to make it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { it } from 'vitest';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('.', import.meta.url));
const VENV = fileURLToPath(new URL('../../node_modules/.cache/lanyard-py/bin/python', import.meta.url));

export const python = process.env.LANYARD_PY ?? VENV;
export const havePython = existsSync(python);

const HOW =
  'make it as .ci/run does: its block "Python interop tests" (python3 -m venv --system-site-packages, pip install -r test/interop-py/requirements.txt)';

/**
 * `describe`'s body when the environment is there; else, in CI, one failing
 * test (a missing environment must not pass unseen), and elsewhere a skip
 * that says why.
 */
export function withPython(body: () => void): () => void {
  if (havePython) return body;
  if (process.env.CI === 'true') {
    return () => {
      it('has the Python environment', () => {
        throw new Error(`no Python environment at ${python}: ${HOW}`);
      });
    };
  }
  return () => {
    it.skip(`needs the Python environment at ${python} (${HOW})`, () => undefined);
  };
}

/** Runs `script` (a file beside this one) with `input` as JSON on argv; its stdout parsed as JSON. */
export async function runPython<T = Record<string, unknown>>(script: string, input: unknown, env: Record<string, string> = {}): Promise<T> {
  try {
    const { stdout } = await run(python, [`${HERE}${script}`, JSON.stringify(input)], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONWARNINGS: 'ignore', ...env },
      timeout: 60_000,
      maxBuffer: 8 << 20,
    });
    return JSON.parse(stdout) as T;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${script} failed: ${e.message}\n${e.stderr ?? ''}${e.stdout ?? ''}`);
  }
}
