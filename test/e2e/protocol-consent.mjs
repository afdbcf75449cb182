#!/usr/bin/env node
// A stand-in browser for e2e tests: records the URL it is asked to open
// (LANYARD_TEST_URL_LOG) and, with LANYARD_TEST_CONSENT=allow|deny, answers
// the consent pages (including the third-party one) by submitting their forms.
import { appendFileSync } from 'node:fs';

const url = process.argv[2];
if (process.env.LANYARD_TEST_URL_LOG) appendFileSync(process.env.LANYARD_TEST_URL_LOG, url + '\n');
const decision = process.env.LANYARD_TEST_CONSENT;
if (decision === 'allow' || decision === 'deny') {
  const unescape = (s) =>
    s
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>');
  let res = await fetch(url);
  for (let i = 0; i < 5; i++) {
    const html = await res.text();
    const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html);
    if (!form) break;
    const fields = new URLSearchParams();
    for (const m of form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.append(m[1], unescape(m[2]));
    fields.append('decision', decision);
    res = await fetch(new URL(unescape(form[1]), res.url), { method: 'POST', body: fields });
  }
}
