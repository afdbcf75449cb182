/**
 * Stopping the emulator: an open event stream (the console's) is ended at
 * once, not held until the grace for unfinished requests runs out; a request
 * still being answered gets that grace and is answered.
 */
import { get, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/server.js';

const open = (url: string): Promise<IncomingMessage> => new Promise((resolve, reject) => get(url, { agent: false }, resolve).once('error', reject));

describe('emulator shutdown', () => {
  it("ends the console's event stream at once: the reader sees its end, and close() does not wait out the grace", async () => {
    const emu = await startEmulator();
    const res = await open(`${emu.url}/_emulator/console/events`);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    const ended = new Promise<string>((resolve) => {
      res.once('end', () => resolve('end'));
      res.once('error', (e) => resolve(`error ${e.message}`));
    });
    await new Promise<void>((r) => res.once('data', () => r()));
    const t0 = performance.now();
    await emu.close();
    const took = performance.now() - t0;
    expect(await ended).toBe('end');
    expect(text).toContain(': lanyard emulator console');
    // The grace for unfinished requests is a second; an event stream is not one of them. Waiting it out takes
    // >= 1,000 ms; 900 leaves a loaded machine room while still failing on that.
    expect(took, 'close() waited out the 1 s grace').toBeLessThan(900);
  });

  it('a request being answered (a latency fault) still gets its answer', async () => {
    const emu = await startEmulator();
    emu.admin.addFault({ type: 'latency', path: '/api/v3/rate_limit', latencyMs: 300 });
    const pending = open(`${emu.url}/api/v3/rate_limit`);
    await new Promise((r) => setTimeout(r, 50));
    const closed = emu.close();
    const res = await pending;
    let body = '';
    for await (const c of res) body += c;
    await closed;
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(body)).toHaveProperty('resources');
  });
});
