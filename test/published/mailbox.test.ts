/**
 * The mailbox answers in the shapes of the mail store's published JAX-RS
 * resources (elasticinbox/elasticinbox-java, modules/rest/src/main/java/com/
 * elasticinbox/rest/v2/SingleMessageResource.java and MessageResource.java,
 * and core/model/Message.java and MimePart.java at commit
 * 39fb0e73936d53bbb1b7d6496651959611c9f75a): the parsed message always wrapped
 * as {"message": ...}, `prev`/`next` left out when there is none, the
 * absolute Location of a stored message, raw messages as text/plain, parts
 * always sent as attachments, messageId/replyTo/bcc and each part's
 * contentId/disposition in the metadata.
 */
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../e2e/in-process-emulator.js';

const ref = useInProcessEmulator();

const MESSAGE = [
  'From: Ann <ann@example.net>',
  'To: bob@example.com',
  'Bcc: hidden@example.org',
  'Reply-To: Replies <replies@example.net>',
  'Message-ID: <m1@example.net>',
  'Subject: shapes',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b"',
  '',
  '--b',
  'Content-Type: text/plain',
  '',
  'hello',
  '--b',
  'Content-Type: image/png; name="dot.png"',
  'Content-Disposition: inline; filename="dot.png"',
  'Content-ID: <dot@example.net>',
  'Content-Transfer-Encoding: base64',
  '',
  'iVBORw0KGgo=',
  '--b--',
  '',
].join('\r\n');

describe('mailbox answers as the published resources write them', () => {
  it('store, get, raw and part', async () => {
    const api = ref.emu.urls.mailbox.api;
    const stored = await fetch(`${api}/message?label=5`, { method: 'POST', body: MESSAGE });
    expect(stored.status).toBe(201);
    const { id } = (await stored.json()) as { id: string };
    expect(stored.headers.get('location')).toBe(`${api}/message/${id}`);

    const got = (await (await fetch(`${api}/message/${id}`)).json()) as Record<string, Record<string, unknown>>;
    expect(Object.keys(got)).toEqual(['message']);
    expect(got.message).toMatchObject({
      messageId: '<m1@example.net>',
      replyTo: [{ address: 'replies@example.net', name: 'Replies' }],
      bcc: [{ address: 'hidden@example.org', name: '' }],
      parts: { '2': { contentId: 'dot@example.net', disposition: 'inline', fileName: 'dot.png', mimeType: 'image/png' } },
    });

    // The newest message of label 5: no next, no `null` either.
    const adjacent = (await (await fetch(`${api}/message/${id}?adjacent=true&label=5`)).json()) as Record<string, unknown>;
    expect(adjacent).not.toHaveProperty('next');
    expect(adjacent).not.toHaveProperty('prev');

    const raw = await fetch(`${api}/message/${id}/raw`);
    expect(raw.headers.get('content-type')).toBe('text/plain');
    await raw.text();
    const part = await fetch(`${api}/message/${id}/2`);
    expect(part.headers.get('content-disposition')).toMatch(/^attachment; filename="dot.png"/);
    await part.arrayBuffer();

    // Deleted: out of every listing, its labels kept until the purge.
    expect((await fetch(`${api}/message/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await fetch(`${api}/label/5`)).json()).toEqual([]);
    const deleted = (await (await fetch(`${api}/message/${id}`)).json()) as { message: { labels: number[] } };
    expect(deleted.message.labels).toEqual([0, 5]);
  });

  it('delete and update take a message out of the label indexes only: read by id, it keeps its labels and markers', async () => {
    // CassandraMessageDAO.delete (same commit) adds the ids to the purge index and removes
    // them from the label indexes (LabelIndexPersistence.remove); unlike modify, it never
    // deletes the message's label or marker attributes, which GET /message/:uuid reads.
    const api = ref.emu.urls.mailbox.api;
    const { id } = (await (await fetch(`${api}/message?label=3&marker=seen`, { method: 'POST', body: MESSAGE })).json()) as { id: string };
    const updated = await fetch(`${api}/message/${id}`, { method: 'POST', body: MESSAGE.replace('Subject: shapes', 'Subject: v2') });
    const fresh = ((await updated.json()) as { id: string }).id;
    expect((await fetch(`${api}/message/${fresh}`, { method: 'DELETE' })).status).toBe(204);
    for (const gone of [id, fresh]) {
      for (const label of [0, 3]) expect(await (await fetch(`${api}/label/${label}?count=500`)).json()).not.toContain(gone);
      const got = (await (await fetch(`${api}/message/${gone}`)).json()) as { message: { labels: number[]; markers: string[] } };
      expect(got.message).toMatchObject({ labels: [0, 3], markers: ['SEEN'] });
    }
  });
});
