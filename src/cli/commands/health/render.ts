/** Human rendering of health events: the list table and the full detail of one event. */
import type { HealthEvent, HealthEventProperties, HealthFaq, HealthImpact, HealthLink, RecommendedActions } from '../../../shared/health.js';
import type { IO } from '../../io.js';
import { renderTable, sanitize, type Column } from '../../output/output.js';

const bold = (s: string) => `\u001b[1m${s}\u001b[22m`;
const red = (s: string) => `\u001b[31m${s}\u001b[39m`;
const yellow = (s: string) => `\u001b[33m${s}\u001b[39m`;
const green = (s: string) => `\u001b[32m${s}\u001b[39m`;
const dim = (s: string) => `\u001b[2m${s}\u001b[22m`;

/** `2025-05-12 14:45 UTC`: the service's instants, shown in UTC so they match the portal's notices. */
export function shortTime(iso: string | undefined): string {
  if (!iso) return '';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

function unique(values: Array<string | undefined>): string[] {
  return [...new Set(values.filter((v): v is string => !!v))];
}

export function servicesOf(e: HealthEvent): string[] {
  return unique((e.properties?.impact ?? []).map((i) => i.impactedService));
}

export function regionsOf(e: HealthEvent): string[] {
  return unique((e.properties?.impact ?? []).flatMap((i) => (i.impactedRegions ?? []).map((r) => r.impactedRegion)));
}

const statusStyle = (cell: string, e: HealthEvent) => (e.properties?.status === 'Active' ? bold(red(cell)) : green(cell));
const levelStyle = (cell: string, e: HealthEvent) => {
  const l = e.properties?.eventLevel ?? e.properties?.level;
  return l === 'Critical' || l === 'Error' ? red(cell) : l === 'Warning' ? yellow(cell) : cell;
};

export const EVENT_COLUMNS: ReadonlyArray<Column<HealthEvent>> = [
  {
    header: 'Title',
    value: (e) => e.properties?.title ?? e.name ?? '',
    flexible: true,
    min: 24,
    style: (c, e) => (e.properties?.status === 'Active' ? bold(c) : c),
  },
  { header: 'Status', value: (e) => e.properties?.status ?? '', style: statusStyle },
  { header: 'Level', value: (e) => e.properties?.eventLevel ?? e.properties?.level ?? '', style: levelStyle, optional: true },
  { header: 'Type', value: (e) => e.properties?.eventType ?? '', optional: true, shrink: 3 },
  { header: 'Impact start', value: (e) => shortTime(e.properties?.impactStartTime), raw: (e) => e.properties?.impactStartTime ?? '' },
  { header: 'Services', value: (e) => servicesOf(e).join(', '), flexible: true, shrink: 2 },
  { header: 'Regions', value: (e) => regionsOf(e).join(', '), flexible: true, shrink: 3 },
  { header: 'Last update', value: (e) => shortTime(e.properties?.lastUpdateTime), raw: (e) => e.properties?.lastUpdateTime ?? '', optional: true, shrink: 2 },
];

export function renderEventsTable(io: IO, events: readonly HealthEvent[]): void {
  renderTable(io, events, EVENT_COLUMNS);
}

/** HTML of article/description fields as plain text. */
export function plainText(html: string): string {
  return html
    .replace(/<\s*br\s*\/?>/gi, '\n')
    .replace(/<\/\s*(p|div|li|h\d)\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n')
    .trim();
}

/** The detail page's writing: lines, headings (bold with colour) and "Label:  value" fields, server text sanitised. */
function detailWriter(io: IO) {
  // Colour is added to sanitised server text only: the styled writer keeps just that colour.
  const out = (s = '') => io.printStyled(`${s}\n`);
  const clean = (s: string | undefined) => sanitize(s ?? '');
  return {
    color: io.color,
    out,
    clean,
    heading: (s: string) => out(io.color ? bold(s) : s),
    field: (label: string, value: string | undefined) => {
      if (value) out(`${(label + ':').padEnd(18)}${clean(value)}`);
    },
  };
}

type DetailWriter = ReturnType<typeof detailWriter>;

/** The full detail of one event, for a terminal or a pager: one section after the other. */
export function renderEventDetail(io: IO, e: HealthEvent): void {
  const w = detailWriter(io);
  const p = e.properties ?? {};
  renderOverview(w, e);
  renderSummary(w, p);
  renderImpact(w, p.impact ?? []);
  renderActions(w, p.recommendedActions);
  renderLinks(w, p.links ?? []);
  renderFaqs(w, p.faqs ?? []);
}

/** The title and the event's fields (tracking id, status, type, level, times, flags, billing). */
function renderOverview(w: DetailWriter, e: HealthEvent): void {
  const { out, clean, field } = w;
  const p = e.properties ?? {};
  w.heading(clean(p.title ?? e.name));
  if (p.header) out(clean(p.header));
  out();
  field('Tracking id', e.name);
  const status = sanitize(p.status ?? '');
  if (status) out(`${'Status:'.padEnd(18)}${w.color ? statusStyle(status, e) : status}`);
  field('Type', [p.eventType, p.eventSubType].filter(Boolean).join(' / '));
  field('Level', [p.eventLevel, p.level && p.level !== p.eventLevel ? `(level ${p.level})` : ''].filter(Boolean).join(' '));
  field('Source', p.eventSource);
  field('Priority', p.priority === undefined ? undefined : String(p.priority));
  field('Impact start', shortTime(p.impactStartTime));
  field('Mitigated', shortTime(p.impactMitigationTime));
  field('Last update', shortTime(p.lastUpdateTime));
  field('Tags', (p.eventTags ?? []).join(', '));
  const flags = [
    p.isHIR ? `high incident rate${p.hirStage ? ` (${p.hirStage})` : ''}` : '',
    p.isEventSensitive ? 'sensitive' : '',
    p.platformInitiated ? 'platform initiated' : '',
  ].filter(Boolean);
  field('Flags', flags.join(', '));
  field('Incident', p.externalIncidentId);
  if (p.eventType === 'Billing' || p.billingId) {
    field('Billing id', p.billingId);
    if (p.oldRate !== undefined || p.newRate !== undefined)
      field('Rate', `${p.oldRate ?? '?'} → ${p.newRate ?? '?'}${p.currencyType ? ' ' + p.currencyType : ''}`);
  }
}

/** The summary (else the description or the article as plain text), the sensitivity note, additional information. */
function renderSummary(w: DetailWriter, p: HealthEventProperties): void {
  const summary = p.summary || (p.description ? plainText(p.description) : '') || (p.article?.articleContent ? plainText(p.article.articleContent) : '');
  w.out();
  if (summary)
    w.out(
      summary
        .split('\n')
        .map((l) => sanitize(l))
        .join('\n'),
    );
  if (p.isEventSensitive) w.out(dimIf(w.color, 'This event is sensitive: its details are only available through the fetchEventDetails operation.'));
  if (p.additionalInformation?.message) w.out(w.clean(p.additionalInformation.message));
}

function renderActions(w: DetailWriter, actions: RecommendedActions | undefined): void {
  if (!actions?.actions?.length) return;
  w.out();
  w.heading(w.clean(actions.message) || 'Recommended actions');
  for (const a of actions.actions) w.out(`  • ${w.clean(a.actionText)}`);
}

function renderLinks(w: DetailWriter, links: readonly HealthLink[]): void {
  if (!links.length) return;
  const { out, clean } = w;
  out();
  w.heading('Links');
  for (const l of links) {
    const params = Object.entries(l.parameters ?? {})
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ');
    out(
      `  • ${clean(l.displayText?.localizedValue ?? l.displayText?.value ?? l.bladeName)} [${clean(l.type ?? 'link')}] ${clean([l.extensionName, l.bladeName].filter(Boolean).join('/'))}${params ? ` (${clean(params)})` : ''}`,
    );
  }
}

function renderFaqs(w: DetailWriter, faqs: readonly HealthFaq[]): void {
  if (!faqs.length) return;
  w.out();
  w.heading('FAQs');
  for (const f of faqs) {
    w.out(`  Q: ${w.clean(f.question)}`);
    w.out(`  A: ${w.clean(f.answer)}`);
  }
}

function dimIf(color: boolean, s: string): string {
  return color ? dim(s) : s;
}

function renderImpact(w: DetailWriter, impact: readonly HealthImpact[]): void {
  if (!impact.length) return;
  w.out();
  w.heading('Impact');
  for (const imp of impact) {
    w.out(`  ${sanitize(imp.impactedService ?? '(unknown service)')}`);
    for (const r of imp.impactedRegions ?? []) {
      const st = sanitize(r.status ?? '');
      const stText = w.color && st ? (st === 'Active' ? bold(red(st)) : green(st)) : st;
      w.out(
        `    ${sanitize(r.impactedRegion ?? '')}${st ? ` — ${stText}` : ''}${r.lastUpdateTime ? `, updated ${sanitize(shortTime(r.lastUpdateTime))}` : ''}`,
      );
      for (const u of r.updates ?? []) {
        const tags = u.eventTags?.length ? ` [${sanitize(u.eventTags.join(', '))}]` : '';
        w.out(`      ${sanitize(shortTime(u.updateDateTime))}${tags}  ${sanitize(u.summary ?? '')}`);
      }
    }
  }
}
