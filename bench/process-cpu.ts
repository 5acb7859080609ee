import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/**
 * CPU of the stack's processes from Linux `/proc` (issue 28): each process's own user + system
 * ticks (`utime` + `stime`, all its threads), plus for a process tree (PostgreSQL: the postmaster
 * and its backends) every live descendant's, plus the ticks of descendants that already exited
 * and were reaped (`cutime` + `cstime` of their parent). A backend that exits between two samples
 * moves from "live child" to its parent's `cutime`, so a difference of two samples counts it once.
 */
export interface ProcStat {
  pid: number;
  ppid: number;
  /** The executable's name as /proc shows it (at most 15 characters). */
  comm: string;
  /** Ticks of the process itself (all threads): user, system. */
  utime: number;
  stime: number;
  /** Ticks of its exited and waited-for children (and theirs): user, system. */
  cutime: number;
  cstime: number;
}

/**
 * One `/proc/<pid>/stat` line (proc(5)): `pid (comm) state ppid … utime stime cutime cstime …`.
 * `comm` may hold spaces and parentheses, so the fields are counted from its last `)`.
 */
export function parseProcStat(line: string): ProcStat {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${line.slice(0, 80)}`);
  // After `)`: field 3 (state) is index 0, so field n is index n - 3.
  const fields = line
    .slice(close + 2)
    .trim()
    .split(' ');
  const field = (n: number) => {
    const value = Number(fields[n - 3]);
    if (!Number.isFinite(value)) throw new Error(`/proc/<pid>/stat field ${n} is not a number: ${line.slice(0, 80)}`);
    return value;
  };
  return {
    pid: Number(line.slice(0, open).trim()),
    comm: line.slice(open + 1, close),
    ppid: field(4),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
  };
}

/** Ticks of `root` and everything under it, from one set of stats (undefined when root is gone). */
export function treeTicks(root: number, stats: ProcStat[]): number | undefined {
  const byParent = new Map<number, ProcStat[]>();
  let rootStat: ProcStat | undefined;
  for (const stat of stats) {
    if (stat.pid === root) rootStat = stat;
    const siblings = byParent.get(stat.ppid) ?? [];
    siblings.push(stat);
    byParent.set(stat.ppid, siblings);
  }
  if (!rootStat) return undefined;
  let ticks = 0;
  const pending = [rootStat];
  for (let stat = pending.pop(); stat; stat = pending.pop()) {
    ticks += stat.utime + stat.stime + stat.cutime + stat.cstime;
    pending.push(...(byParent.get(stat.pid) ?? []));
  }
  return ticks;
}

/** Every process's stat now (processes that end while being read are skipped). */
export function readAllProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      stats.push(parseProcStat(readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // Gone meanwhile.
    }
  }
  return stats;
}

/** Milliseconds per clock tick (`getconf CLK_TCK`, 100 on Linux almost everywhere). */
export function tickMs(): number {
  try {
    return 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    return 10;
  }
}

/** Hex `ADDR:PORT` of 127.0.0.1:port (or 0.0.0.0:port) as /proc/net/tcp writes it. */
const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');

/**
 * The process that listens on TCP `port` on this machine (its socket's inode in /proc/net/tcp,
 * then the process holding it; of several holders, the topmost — a postmaster, not its backends).
 */
export function listenerPid(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table = '';
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const row of table.split('\n').slice(1)) {
      const columns = row.trim().split(/\s+/);
      // local_address, st (0A = LISTEN), inode
      if (columns.length > 9 && columns[1].endsWith(`:${hexPort(port)}`) && columns[3] === '0A') inodes.add(columns[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  const holders: ProcStat[] = [];
  for (const stat of readAllProcStats()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${stat.pid}/fd`);
    } catch {
      continue;
    }
    const holds = fds.some((fd) => {
      try {
        const target = readlinkSync(`/proc/${stat.pid}/fd/${fd}`);
        return target.startsWith('socket:[') && inodes.has(target.slice(8, -1));
      } catch {
        return false;
      }
    });
    if (holds) holders.push(stat);
  }
  const pids = new Set(holders.map((stat) => stat.pid));
  return holders.find((stat) => !pids.has(stat.ppid))?.pid;
}

/** A named part of the stack and how to find its processes (looked up at each sample: workers come and go). */
export interface MeteredProcess {
  name: string;
  pids(): number[];
}

/** Ticks per part of the stack at one moment. */
export type CpuSample = Map<string, number>;

export function sampleCpu(processes: MeteredProcess[]): CpuSample {
  const stats = readAllProcStats();
  return new Map(processes.map(({ name, pids }) => [name, pids().reduce((sum, pid) => sum + (treeTicks(pid, stats) ?? 0), 0)] as const));
}

/**
 * CPU ms per run of each part between two samples taken around `runs` runs, and their sum.
 * A process that started or ended between the samples is not measured right: sample around
 * phases during which the set of processes stays the same.
 */
export function cpuPerRun(before: CpuSample, after: CpuSample, runs: number, msPerTick: number): Record<string, number> {
  const perRun: Record<string, number> = {};
  let total = 0;
  for (const [name, ticks] of after) {
    const ms = ((ticks - (before.get(name) ?? 0)) * msPerTick) / runs;
    perRun[name] = Number(ms.toFixed(2));
    total += ms;
  }
  perRun.total = Number(total.toFixed(2));
  return perRun;
}
