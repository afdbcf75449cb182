/** The emulated protocol server's tools, as each revision lists them, and the ones answered at once (echo, time, echo_region). */

export const SERVER_INFO = { name: 'lanyard-emulator-tools', version: '1.0.0' };

export const CONFIRM_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Confirm', default: false } },
  required: ['confirm'],
};

interface Tool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

const TOOLS: Tool[] = [
  { name: 'echo', description: 'Returns the text it is given.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'time', description: 'Returns the emulator clock as an ISO date.', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'confirm',
    description: 'Asks the user a yes/no question (elicitation) and returns the answer (revisions 2025-06-18 and later).',
    inputSchema: { type: 'object', properties: { question: { type: 'string' } } },
  },
];

/** 2026-07-28 only: a tool whose argument travels in a header too (SEP-2243 `x-mcp-header`). */
const ECHO_REGION: Tool = {
  name: 'echo_region',
  description: 'Returns the region it is given; the region is mirrored into the Mcp-Param-Region header (revision 2026-07-28).',
  inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] },
};

export function toolsOf(revision: string): Tool[] {
  return revision === '2026-07-28' ? [...TOOLS, ECHO_REGION] : TOOLS;
}

/** A call of a tool that answers at once; confirm is each revision's own business. */
export function callTool(
  name: unknown,
  rawArgs: unknown,
  now: number,
  revision: string,
): { result: Record<string, unknown> } | { error: { code: number; message: string } } {
  const args = (rawArgs ?? {}) as Record<string, unknown>;
  const text = (t: string, isError = false) => ({ result: { content: [{ type: 'text', text: t }], isError } });
  // Arguments that do not fit the schema: a protocol error before 2026-07-28, a tool execution error (isError) from then on.
  const invalid = (message: string) => (revision === '2026-07-28' ? text(message, true) : { error: { code: -32602, message } });
  if (name === 'echo') return typeof args.text === 'string' ? text(args.text) : invalid('echo needs arguments.text (string)');
  if (name === 'time') return text(new Date(now).toISOString());
  if (name === 'echo_region' && revision === '2026-07-28') {
    return typeof args.region === 'string' ? text(`region: ${args.region}`) : invalid('echo_region needs arguments.region (string)');
  }
  return { error: { code: -32602, message: `unknown tool ${String(name)}` } };
}
