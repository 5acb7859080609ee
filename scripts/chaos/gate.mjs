// The chaos step's verdict (scripts/chaos/test-step.sh): one summary line from a chaos report, and
// a non-zero exit on any lost run, any effect call after a recorded success, any node record
// replaced, any trigger never accepted, any trigger answered 500 (an outage answers 503 with
// Retry-After) — what issue 22 promises under every fault.
//
//   node scripts/chaos/gate.mjs <report.json>
import fs from 'node:fs';

const file = process.argv[2];
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const { runs, effects, triggers, faults } = report;
const lost = runs.notTerminalLost + runs.notFoundLost;
const answered500 = triggers.attemptErrors?.['500'] ?? 0;
const problems = [
  lost > 0 && `${lost} runs lost`,
  effects.violationCount > 0 && `${effects.violationCount} effect calls after a recorded success`,
  effects.replacedRecordCount > 0 && `${effects.replacedRecordCount} node records replaced`,
  answered500 > 0 && `${answered500} trigger answers 500`,
  triggers.neverAccepted > 0 && `${triggers.neverAccepted} triggers never accepted`,
].filter(Boolean);
const figures =
  `${faults.total} faults, ${triggers.accepted} runs accepted, ${runs.succeeded} succeeded, ${runs.failed} failed, ${lost} lost, ` +
  `${effects.violationCount} repeats after a recorded success, ${effects.replacedRecordCount} records replaced, ${answered500} answers 500, ` +
  `run duration p95 ${runs.durationMsP95} ms, max ${runs.durationMsMax} ms`;
console.log(
  problems.length === 0 ? `chaos: ok (${figures}); report ${file}` : `chaos: FAILED: ${problems.join(', ')} (${figures}); report ${file}`,
);
process.exit(problems.length === 0 ? 0 : 1);
