/**
 * Well-formed answers of every service (one per wire type), for the fault
 * suite to spoil one field at a time, and a hostile-server handler that
 * serves them by path: health events, mailbox list/get/store, protocol
 * initialize/tools list, hosting user and rate limit, echo, OAuth metadata.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MESSAGE_ID = '0f9e8d7c-6b5a-1938-8271-605f4e3d2c1b';
export const TRACKING_ID = 'LY03-E6P';

export function healthEvent(): Record<string, unknown> {
  return {
    id: `/subscriptions/6f1c2a4e-0b7d-4c1e-9a55-3d2b8e7f9a10/providers/Microsoft.ResourceHealth/events/${TRACKING_ID}`,
    name: TRACKING_ID,
    type: '/providers/Microsoft.ResourceHealth/events',
    properties: {
      title: 'Virtual machines unreachable',
      header: 'Your service might have been impacted',
      summary: 'Engineers are investigating.',
      status: 'Active',
      eventType: 'ServiceIssue',
      eventLevel: 'Warning',
      level: 'Warning',
      eventSource: 'ServiceHealth',
      priority: 3,
      impactStartTime: '2025-05-12T14:45:00Z',
      lastUpdateTime: '2025-05-12T15:00:00Z',
      eventTags: ['Action Recommended'],
      isHIR: false,
      impact: [
        {
          impactedService: 'Virtual Machines',
          impactedRegions: [
            {
              impactedRegion: 'West Europe',
              status: 'Active',
              lastUpdateTime: '2025-05-12T15:00:00Z',
              updates: [{ summary: 'Mitigation under way.', updateDateTime: '2025-05-12T15:00:00Z', eventTags: ['Preliminary PIR'] }],
            },
          ],
        },
      ],
      links: [{ type: 'Button', displayText: { value: 'Open', localizedValue: 'Open' }, bladeName: 'Blade', extensionName: 'Ext', parameters: { id: 'x' } }],
      recommendedActions: { message: 'What to do', actions: [{ actionText: 'Fail over', groupId: 1 }] },
      faqs: [{ question: 'Why?', answer: 'Because.' }],
    },
  };
}

export function healthPage(): Record<string, unknown> {
  return { value: [healthEvent()] };
}

export function mailboxMetadata(): Record<string, unknown> {
  return {
    labels: [0, 1],
    size: 1234,
    date: '2025-01-02T03:04:05.000+0000',
    subject: 'Quarterly report',
    markers: ['SEEN'],
    from: [{ address: 'bob@example.com', name: 'Bob' }],
    to: [{ address: 'alice@example.com', name: 'Alice' }],
    messageId: '<1@example.com>',
    parts: { '2': { size: 10, fileName: 'report.txt', mimeType: 'text/plain' } },
    textBody: 'Hello Alice,\nthe report is attached.',
    htmlBody: '<p>Hello Alice</p>',
  };
}

export function mailboxList(): Record<string, unknown> {
  return { [MESSAGE_ID]: mailboxMetadata() };
}

export function initializeResult(): Record<string, unknown> {
  return {
    protocolVersion: '2025-06-18',
    capabilities: { tools: {} },
    serverInfo: { name: 'hostile', version: '1.0.0' },
    instructions: 'Be careful.',
  };
}

export function toolsListResult(): Record<string, unknown> {
  return { tools: [{ name: 'echo', description: 'echoes', inputSchema: { type: 'object', properties: {} } }] };
}

/** What the hostile server answers, by the service's path (each a fresh object; change them freely). */
export interface Answers {
  health?: unknown;
  mailboxGet?: unknown;
  mailboxList?: unknown;
  /** The result of initialize / server/discover. */
  initialize?: unknown;
  tools?: unknown;
  user?: unknown;
  rateLimit?: unknown;
  echo?: unknown;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A handler for the hostile server that answers every service from `a` (defaults: the well-formed answers above). */
export function serveAnswers(a: Answers): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = req.url ?? '';
    if (url.includes('.ResourceHealth/events')) return json(res, 200, a.health ?? healthPage());
    if (url.includes('/mailbox/label/')) return json(res, 200, a.mailboxList ?? mailboxList());
    if (url.includes('/mailbox/message/')) return json(res, 200, a.mailboxGet ?? mailboxMetadata());
    if (url.startsWith('/api/v3/user')) return json(res, 200, a.user ?? { login: 'mona', id: 1, name: 'Mona' });
    if (url.startsWith('/api/v3/rate_limit'))
      return json(res, 200, a.rateLimit ?? { resources: { core: { limit: 5000, used: 1, remaining: 4999, reset: 1900000000 } } });
    if (url.startsWith('/echo')) return json(res, 200, a.echo ?? { message: 'hi' });
    if (url.startsWith('/mcp') && req.method === 'POST') {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        let msg: { id?: unknown; method?: string } = {};
        try {
          msg = JSON.parse(text) as typeof msg;
        } catch {
          /* not JSON */
        }
        if (msg.id === undefined) {
          res.writeHead(202);
          return res.end();
        }
        const result = msg.method === 'tools/list' ? (a.tools ?? toolsListResult()) : (a.initialize ?? initializeResult());
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'hostile-session' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      });
      return;
    }
    if (url.startsWith('/mcp') && req.method === 'DELETE') {
      res.writeHead(204);
      return res.end();
    }
    json(res, 404, { message: 'Not Found' });
  };
}

/** A deep copy of `body` with the field at `path` set to `value` (an array index is a number). */
export function withField(body: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = value;
  return copy;
}
