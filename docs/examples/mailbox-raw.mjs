// Streaming a raw message: stored from a stream, read back as a stream
// (inflated on the fly when the server sends it deflated), never held whole.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HttpClient, inflaterFor, MailboxClient, systemClock } from 'lanyard-cli';
import { startEmulator } from 'lanyard-cli/emulator';

const emulator = await startEmulator();
const http = new HttpClient({ clock: systemClock, userAgent: 'mailbox-example/1.0' });
try {
  const mailbox = new MailboxClient(http, { baseUrl: emulator.urls.mailbox.base, ...emulator.fixtures.mailbox });

  const message = ['From: bob@example.com', 'To: alice@example.com', 'Subject: Hello', '', 'Streamed both ways.', ''].join('\r\n');
  const id = await mailbox.store(Readable.from([Buffer.from(message)]), { labels: [3] });

  const { body, encoding } = await mailbox.raw(id);
  const stages = encoding === 'deflate' ? [body, await inflaterFor(body)] : [body];
  await pipeline(...stages, process.stdout);
} finally {
  await http.close();
  await emulator.stop();
}
