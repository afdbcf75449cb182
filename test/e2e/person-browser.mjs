#!/usr/bin/env node
// A stand-in for the person at the browser, for the examples test
// (LANYARD_BROWSER): opens the sign-in URL it is given and does what the
// person would on the emulator's pages, over plain HTTP - signs in on each
// form with the person's account of that service (LANYARD_TEST_PERSONS, JSON:
// {hosting, health, echo: {login, password}}), presses the first button (Sign
// in, Authorize, Allow), follows redirects, and hands a fragment response to
// the loopback page the way its script would. The device page is left alone:
// its code is entered by the test, which reads it from the command's output.
const persons = JSON.parse(process.env.LANYARD_TEST_PERSONS ?? '{}');
const unescape = (s) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

let url = new URL(process.argv[2]);
if (url.pathname.startsWith('/login/device')) process.exit(0);
let res = await fetch(url, { redirect: 'manual' });
for (let step = 0; step < 10; step++) {
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) {
    url = new URL(location, url);
    if (url.hash && (url.hostname === '127.0.0.1' || url.hostname === 'localhost')) {
      // the loopback page's script posts the fragment back to where it was served
      await (await fetch(new URL(url.pathname, url))).text();
      res = await fetch(new URL(url.pathname, url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: url.hash.slice(1),
      });
      break;
    }
    res = await fetch(url, { redirect: 'manual' });
    continue;
  }
  const html = await res.text();
  const form = /<form method="post"(?: action="([^"]*)")?>([\s\S]*?)<\/form>/.exec(html);
  if (!form) break;
  const fields = new URLSearchParams();
  for (const m of form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.append(m[1], unescape(m[2]));
  const person = /name="email"/.test(form[2]) ? persons.echo : url.pathname.includes('/oauth2/') ? persons.health : persons.hosting;
  if (/name="(login|email)"/.test(form[2]) && person) {
    fields.set(/name="email"/.test(form[2]) ? 'email' : 'login', person.login);
    fields.set('password', person.password);
  }
  const button = /<button type="submit" name="([^"]+)" value="([^"]*)"/.exec(form[2]);
  if (button) fields.set(button[1], unescape(button[2]));
  url = new URL(unescape(form[1] ?? url.pathname + url.search), url);
  res = await fetch(url, { method: 'POST', body: fields, redirect: 'manual' });
}
if (res.status >= 400) {
  process.stderr.write(`stand-in browser: ${url} answered ${res.status}\n`);
  process.exit(1);
}
