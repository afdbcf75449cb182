/** The terminal's sanitiser on streamed bodies and the shapers' JSON (terminal-stream.ts, terminal-text.ts). */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { binaryType, terminalStream } from '../../../src/cli/terminal/terminal-stream.js';
import { terminalText } from '../../../src/cli/terminal/terminal-text.js';

async function through(chunks: Buffer[], o: { binary?: boolean } = {}): Promise<string> {
  let out = '';
  await pipeline(
    Readable.from(chunks),
    terminalStream(() => new Error('binary'), o),
    async (source: AsyncIterable<string | Buffer>) => {
      for await (const c of source) out += c.toString();
    },
  );
  return out;
}

/** `text` cut into chunks at every byte offset in `cuts`. */
function cut(text: string, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const at = [0, ...cuts, bytes.length];
  return at.slice(1).map((end, i) => bytes.subarray(at[i], end));
}

describe('terminalText', () => {
  it('CRLF is a line end; a bare CR is shown, as the other controls', () => {
    expect(terminalText('Steps:\r\n1. run\r\n')).toBe('Steps:\r\n1. run\r\n');
    expect(terminalText('a\rb\r')).toBe('a^Mb^M');
    expect(terminalText('a\r\r\nb')).toBe('a^M\r\nb');
  });

  it("a server's colour is shown, never kept: only the styled path keeps SGR", () => {
    expect(terminalText('\u001b[8mHIDDEN\u001b[28m')).toBe('^[[8mHIDDEN^[[28m');
    expect(terminalText('\u001b[1mbold\u001b[22m\u001b]0;t\u0007', true)).toBe('\u001b[1mbold\u001b[22m^[]0;t^G');
  });
});

describe('terminalStream', () => {
  const text = 'Hi \u001b[2J€ ok\r\nnext\rbare\r';
  it.each(
    Array.from({ length: Buffer.byteLength(text) - 1 }, (_, i) => i + 1),
  )('the same text wherever the body is cut (at byte %i): UTF-8 whole, CRLF kept, a bare CR shown', async (at) => {
    expect(await through(cut(text, [at]))).toBe('Hi ^[[2J€ ok\r\nnext^Mbare^M');
  });

  it('a body of a binary type: refused at its first byte; empty, it passes (a HEAD, a 204)', async () => {
    await expect(through([Buffer.from('PNG')], { binary: true })).rejects.toThrow('binary');
    expect(await through([], { binary: true })).toBe('');
  });

  it('a NUL byte ends the stream with the refusal', async () => {
    await expect(through([Buffer.from('text'), Buffer.from('a\u0000b')])).rejects.toThrow('binary');
  });
});

describe('binaryType: only what is certainly binary; the rest is decided by its bytes (a NUL), as curl decides', () => {
  it.each([
    ['text/plain; charset=utf-8', false],
    ['application/json', false],
    ['application/vnd.github+json', false],
    ['application/vnd.github.diff; charset=utf-8', false],
    ['application/vnd.github.patch', false],
    ['application/vnd.github.sha', false],
    ['application/octocat-stream', false],
    ['application/x-yaml', false],
    ['application/pgp-keys', false],
    ['message/rfc822', false],
    ['image/svg+xml', false],
    ['application/octet-stream; charset=utf-8', false],
    [undefined, false],
    ['', false],
    ['image/png', true],
    ['IMAGE/PNG', true],
    ['audio/mpeg', true],
    ['video/mp4', true],
    ['font/woff2', true],
    ['application/octet-stream', true],
    ['application/zip', true],
    ['application/gzip', true],
    ['application/x-tar', true],
    ['application/pdf', true],
  ])('%s: binary %s', (type, binary) => {
    expect(binaryType(type)).toBe(binary);
  });
});
