import { describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { dispositionFileName, pathInside, safeFileName } from '../../../../src/core/mailbox/filename.js';

describe('part file names', () => {
  it('reads filename and prefers the decoded filename*', () => {
    expect(dispositionFileName('attachment; filename="report.csv"')).toBe('report.csv');
    expect(dispositionFileName(`attachment; filename="r_port.csv"; filename*=UTF-8''r%C3%A9port.csv`)).toBe('réport.csv');
    expect(dispositionFileName('inline')).toBeUndefined();
    expect(dispositionFileName(undefined)).toBeUndefined();
  });

  it('reduces names to one harmless component', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\win\u0007dows.ini')).toBe('windows.ini');
    expect(safeFileName('a\u001b[31mred.txt')).toBe('a[31mred.txt');
    expect(safeFileName('..')).toBeUndefined();
    expect(safeFileName('...')).toBeUndefined();
    expect(safeFileName('/')).toBeUndefined();
    expect(safeFileName('.bashrc')).toBe('bashrc');
    expect(safeFileName('CON.txt')).toBe('_CON.txt');
    expect(safeFileName('what?.txt')).toBe('what_.txt');
    expect(safeFileName('x'.repeat(500))!.length).toBe(200);
  });

  it('never resolves outside the directory', () => {
    expect(pathInside('/tmp/out', 'a.txt')).toBe(join(resolve('/tmp/out'), 'a.txt'));
    expect(() => pathInside('/tmp/out', '../a.txt')).toThrow(/outside/);
    expect(() => pathInside('/tmp/out', '/etc/passwd')).toThrow(/outside/);
  });
});
