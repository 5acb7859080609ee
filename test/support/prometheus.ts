/** One sample of a Prometheus exposition: `name{label="value",…} number`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format (0.0.4): comments skipped; throws on a line that is not a sample. */
export function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = SAMPLE_LINE.exec(line);
      if (!match) throw new Error(`not an exposition line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(LABEL)].map(([, key, value]) => [key, value.replace(/\\(.)/g, '$1')]),
      );
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none). */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Whether any sample is named `name`. */
export const has = (samples: Sample[], name: string) => samples.some((sample) => sample.name === name);
