/**
 * A browser for sign-in tests, in process: records each URL it is asked to
 * open and, when told to allow or deny, answers the consent pages there (the
 * authorization server's and a third party's) by submitting their forms, as
 * a person would; `record` only records (the test answers the callback).
 */
import type { Browser } from '../../src/core/deps.js';

const ENTITIES: Record<string, string> = { '&amp;': '&', '&quot;': '"', '&#39;': "'", '&lt;': '<', '&gt;': '>' };
const decode = (html: string) => html.replace(/&(amp|quot|#39|lt|gt);/g, (e) => ENTITIES[e]!);

export class ConsentBrowser implements Browser {
  readonly urls: string[] = [];
  readonly #visits: Promise<void>[] = [];

  constructor(public decision: 'allow' | 'deny' | 'record' = 'allow') {}

  async open(url: string): Promise<boolean> {
    this.urls.push(url);
    // Like a browser process: opening returns at once, the pages are answered meanwhile.
    if (this.decision !== 'record') this.#visits.push(this.#answer(url, this.decision));
    return true;
  }

  /** The first URL opened, once there is one (the sign-in is waiting for its callback then). */
  async firstUrl(): Promise<string> {
    for (let i = 0; i < 400 && !this.urls.length; i++) await new Promise((r) => setTimeout(r, 25));
    if (!this.urls[0]) throw new Error('no URL was opened');
    return this.urls[0];
  }

  /** Waits for the pages answered so far. */
  settled(): Promise<unknown> {
    return Promise.allSettled(this.#visits);
  }

  async #answer(url: string, decision: string): Promise<void> {
    let page = await fetch(url);
    for (let step = 0; step < 5; step++) {
      const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(await page.text());
      if (!form) return;
      const body = new URLSearchParams(
        [...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [m[1]!, decode(m[2]!)]),
      );
      body.append('decision', decision);
      page = await fetch(new URL(decode(form[1]!), page.url), { method: 'POST', body });
    }
  }
}
