import { describe, expect, it } from '@jest/globals';
import { cpuPerRun, listenerPid, parseProcStat, readAllProcStats, treeTicks, type ProcStat } from './process-cpu.js';
import { createServer } from 'node:net';

// A real line of /proc/<pid>/stat (a PostgreSQL backend), with utime 1234, stime 56, cutime 7, cstime 8.
const line =
  '4242 (postgres) S 4200 4200 4200 0 -1 4194560 2000 0 0 0 1234 56 7 8 20 0 1 0 4811532 220000000 5000 18446744073709551615 1 1 0 0 0 0 4194304 19935232 84487 0 0 0 17 1 0 0 0 0 0';

const stat = (pid: number, ppid: number, own: number, reaped = 0): ProcStat => ({
  pid,
  ppid,
  comm: 'p',
  utime: own,
  stime: 0,
  cutime: reaped,
  cstime: 0,
});

describe('parseProcStat', () => {
  it('reads pid, parent and the four tick counters', () => {
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4200, comm: 'postgres', utime: 1234, stime: 56, cutime: 7, cstime: 8 });
  });

  it('counts fields from the last parenthesis: a name may hold spaces and parentheses', () => {
    const odd = line.replace('(postgres)', '(a) b (c d)');
    expect(parseProcStat(odd)).toMatchObject({ comm: 'a) b (c d', ppid: 4200, utime: 1234, cstime: 8 });
  });

  it('refuses what is not a stat line', () => {
    expect(() => parseProcStat('hello')).toThrow('not a /proc/<pid>/stat line');
    expect(() => parseProcStat('1 (x) S 0')).toThrow('field 14 is not a number');
  });

  it('parses this machine’s own processes', () => {
    const mine = readAllProcStats().find((entry) => entry.pid === process.pid);
    expect(mine).toMatchObject({ ppid: process.ppid });
    expect((mine as ProcStat).utime + (mine as ProcStat).stime).toBeGreaterThan(0);
  });
});

describe('treeTicks', () => {
  const stats = [stat(1, 0, 1000), stat(10, 1, 5, 20), stat(11, 10, 3), stat(12, 10, 4, 1), stat(20, 1, 7)];

  it('sums a process, its reaped children and every live descendant', () => {
    expect(treeTicks(10, stats)).toBe(5 + 20 + 3 + 4 + 1);
    expect(treeTicks(11, stats)).toBe(3);
  });

  it('is undefined for a process that is gone', () => {
    expect(treeTicks(99, stats)).toBeUndefined();
  });

  it('counts a child that exited between two samples once: its ticks move into the parent’s reaped ticks', () => {
    const before = treeTicks(10, stats) as number;
    // Child 11 ran 2 more ticks, then exited and was reaped: 5 ticks in 10's cutime now.
    const after = treeTicks(10, [stat(10, 1, 5, 20 + 5), stat(12, 10, 4, 1)]) as number;
    expect(after - before).toBe(2);
  });
});

describe('cpuPerRun', () => {
  it('turns two samples into ms per run by part, and their total', () => {
    const before = new Map([
      ['API', 100],
      ['worker', 200],
    ]);
    const after = new Map([
      ['API', 150],
      ['worker', 300],
    ]);
    expect(cpuPerRun(before, after, 100, 10)).toEqual({ API: 5, worker: 10, total: 15 });
  });
});

describe('listenerPid', () => {
  it('finds the process listening on a loopback port', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      expect(listenerPid(typeof address === 'object' && address ? address.port : 0)).toBe(process.pid);
    } finally {
      server.close();
    }
  });
});
