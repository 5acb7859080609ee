/**
 * Schema-pattern benchmark (`npm run bench:schema-pattern`): what a JSON Schema `pattern` costs now
 * that patterns run on RE2 (re2js). The floor is the harmless `^a+$` on the same input in the same
 * run; the line that matters is the catastrophic-backtracking `^(a+)+$` on 33 characters (89.7 s on
 * the former engine, blocking the event loop) and on 10,000: it must answer in < 5 ms, whatever
 * the input. Validation goes through `compileSchema`, the one compiler of every schema in the house.
 * Writes bench/results/schema-pattern.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { compileSchema } from '#mcp';

const SAMPLES = 200;
const LIMIT_MS = 5;
const RESULTS_FILE = 'bench/results/schema-pattern.json';

function medianMs(pattern: string, input: string): number {
  const compiled = compileSchema({ type: 'object', properties: { word: { type: 'string', pattern } } });
  if (!compiled.ok) throw new Error(compiled.reason);
  const times: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    const started = performance.now();
    compiled.validate({ word: input });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Number(times[Math.floor(times.length / 2)].toFixed(4));
}

const lines = [33, 1_000, 10_000].map((length) => {
  const input = `${'a'.repeat(length)}!`;
  const floorMs = medianMs('^a+$', input);
  const evilMs = medianMs('^(a+)+$', input);
  return {
    inputChars: input.length,
    floorMs,
    evilMs,
    ratio: Number((evilMs / Math.max(floorMs, 0.0001)).toFixed(2)),
    underLimit: evilMs < LIMIT_MS,
  };
});

mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS_FILE, JSON.stringify({ limitMs: LIMIT_MS, samples: SAMPLES, lines }, null, 2) + '\n');
for (const line of lines) {
  console.log(
    `^(a+)+$ on ${line.inputChars} chars: median ${line.evilMs} ms (floor ^a+$ ${line.floorMs} ms, ratio ${line.ratio}) ${line.underLimit ? 'ok' : `OVER ${LIMIT_MS} ms`}`,
  );
}
if (lines.some((line) => !line.underLimit)) process.exitCode = 1;
