/** Human tables fit the terminal, the least useful columns shrinking first; pipes get raw tab-separated values. */
import { describe, expect, it } from 'vitest';
import { fitWidths, renderTable, type Column } from '../../../src/cli/output/output.js';
import { EVENT_COLUMNS } from '../../../src/cli/commands/health/render.js';
import type { HealthEvent } from '../../../src/shared/health.js';
import { createTestIO } from '../../fakes/io.js';

const event = (i: number): HealthEvent =>
  ({
    name: `BC_${i}-FXZ`,
    properties: {
      title: `Degraded connectivity to virtual machines in several regions, incident ${i}`,
      status: 'Active',
      eventLevel: 'Warning',
      eventType: 'ServiceIssue',
      impactStartTime: '2026-11-20T10:15:00Z',
      lastUpdateTime: '2026-11-21T08:00:00Z',
      impact: [
        {
          impactedService: 'Virtual Machines',
          impactedRegions: ['West Europe', 'North Europe', 'East US', 'East US 2', 'Central US', 'Southeast Asia'].map((impactedRegion) => ({
            impactedRegion,
          })),
        },
        { impactedService: 'Storage', impactedRegions: [{ impactedRegion: 'West Europe' }] },
      ],
    },
  }) as unknown as HealthEvent;

function table(columns: number): string[] {
  const io = createTestIO({ tty: true, columns });
  renderTable(io, [event(1), event(2)], EVENT_COLUMNS);
  return io.stdoutText().trimEnd().split('\n');
}

describe('tables on a terminal', () => {
  it.each([80, 100, 120, 160])('health events fit %i columns', (cols) => {
    for (const line of table(cols)) expect(line.length).toBeLessThanOrEqual(cols);
  });

  it('the least useful columns give up width first: regions, then services, then the title', () => {
    const [head, row] = table(120);
    expect(row).toContain('Degraded connectivity to'); // the title keeps more than 12 characters
    const regions = head!.indexOf('REGIONS');
    const last = head!.indexOf('LAST UPDATE');
    expect(last - regions - 2).toBeLessThanOrEqual(12);
  });

  it('at 80 columns optional columns are left out (type, then last update, then level) and the title stays readable', () => {
    const [head, row] = table(80);
    expect(head).not.toContain('TYPE');
    expect(head).toContain('STATUS');
    expect(head).toContain('IMPACT START');
    expect(row).toContain('Degraded connectivity to');
  });

  it('fitWidths cuts flexible columns by shrink order, each to its minimum, and never fixed ones', () => {
    const cols: Column<unknown>[] = [
      { header: 'a', value: () => '' },
      { header: 'b', value: () => '', flexible: true },
      { header: 'c', value: () => '', flexible: true, shrink: 2 },
    ];
    // 10 + 40 + 40 + 2 gaps of 2 = 94
    expect(fitWidths([10, 40, 40], cols, 94)).toEqual([10, 40, 40]);
    expect(fitWidths([10, 40, 40], cols, 80)).toEqual([10, 40, 26]);
    expect(fitWidths([10, 40, 40], cols, 50)).toEqual([10, 26, 10]);
    expect(fitWidths([10, 40, 40], cols, 10)).toEqual([10, 10, 10]);
  });

  it('COLUMNS-sized IO: nothing is cut when the table fits', () => {
    const io = createTestIO({ tty: true, columns: 400 });
    renderTable(io, [event(1)], EVENT_COLUMNS);
    expect(io.stdoutText()).not.toContain('…');
  });
});

describe('tab-separated output into a pipe', () => {
  it('raw values (ISO instants, bytes, epoch seconds), one row per line, no header', () => {
    const io = createTestIO({ tty: false });
    renderTable(io, [event(1)], EVENT_COLUMNS);
    const fields = io.stdoutText().trimEnd().split('\t');
    expect(fields).toHaveLength(EVENT_COLUMNS.length);
    expect(fields[4]).toBe('2026-11-20T10:15:00Z');
    expect(fields[7]).toBe('2026-11-21T08:00:00Z');
    expect(fields[6]).toContain('Southeast Asia'); // never cut
  });
});
