import { readdirSync, readFileSync } from 'node:fs';

/** Polls `predicate` until it holds; rejects after `timeoutMs` (server-side effects land asynchronously). */
export async function waitUntil(predicate: () => boolean, timeoutMs = 3_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Pids of this process's own children whose command line contains `needle` (Linux /proc), e.g.
 * the stdio server a connection spawned — so a test can kill exactly that process by its id.
 */
export function childPidsMatching(needle: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false; // exited while we looked
      }
    })
    .map(Number);
}
