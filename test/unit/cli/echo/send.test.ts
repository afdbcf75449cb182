/**
 * A command's run function against fakes handed in as the context's ports:
 * no config directory, no keychain, no environment — the profile, the
 * credential store and the HTTP client are the test's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Context, ContextPorts } from '../../../../src/cli/context.js';
import { runEchoSend } from '../../../../src/cli/commands/echo/send.js';
import { Output } from '../../../../src/cli/output/output.js';
import { apiKeyAccount } from '../../../../src/core/echo/credentials.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { createTestIO, type TestIO } from '../../../fakes/io.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { contextOnFakes } from '../../../fakes/context.js';

const KEY = 'echo-key-of-the-fake-store-0001';
let stub: StubHttp;
let http: HttpClient;
let io: TestIO;
let store: MemoryCredentialStore;

beforeEach(async () => {
  stub = await StubHttp.start();
  http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
  store = new MemoryCredentialStore();
  await store.set(apiKeyAccount(stub.url), KEY);
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

function context(env: NodeJS.ProcessEnv = {}, ports: ContextPorts = {}): Context {
  io = createTestIO();
  return contextOnFakes(io, env, { http, credentials: store, profiles: { active: 'fake', profiles: { fake: { 'echo.baseUrl': stub.url } } }, ...ports });
}

describe('echo send with fake ports', () => {
  it('sends the stored key of the fake store to the fake profile’s API and prints the message', async () => {
    stub.on('POST', '/echo', (req) => ({ body: { message: (JSON.parse(req.body) as { message: string }).message } }));
    await runEchoSend(context(), 'hello', {});
    expect(io.stdoutText()).toBe('hello\n');
    expect(stub.requests[0]!.url.searchParams.get('key')).toBe(KEY);
  });

  it('--json through the output object; LANYARD_API_KEY wins over the store', async () => {
    stub.on('POST', '/echo', (req) => ({ body: { message: `${req.url.searchParams.get('key')}: ${(JSON.parse(req.body) as { message: string }).message}` } }));
    const ctx = context({ LANYARD_API_KEY: 'from-the-environment' }).forRun({ io, output: new Output(io, { format: 'json' }) });
    await runEchoSend(ctx, 'hi', {});
    expect(JSON.parse(io.stdoutText())).toEqual({ message: 'from-the-environment: hi' });
  });

  it('no key in the fake store: exit-4 error naming the host, nothing sent', async () => {
    await expect(runEchoSend(context({}, { credentials: new MemoryCredentialStore() }), 'x', {})).rejects.toMatchObject({ code: 'auth_required' });
    expect(stub.requests).toHaveLength(0);
  });
});
