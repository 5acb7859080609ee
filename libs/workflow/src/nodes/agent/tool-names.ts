/**
 * Function names for the model. OpenAI-compatible APIs accept `^[a-zA-Z0-9_-]{1,64}$`; MCP tool
 * names may hold dots, slashes, spaces or be longer, and two toolsets may publish the same name.
 * Each tool gets a valid name, unique across the agent's toolsets (case-insensitively, since some
 * providers fold case), and the caller keeps the name → tool map to route calls back exactly.
 */
export const FUNCTION_NAME_MAX_LENGTH = 64;

/** The tool's name made valid: other characters become `_`, cut to the length limit. */
export function validFunctionName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, FUNCTION_NAME_MAX_LENGTH);
  return cleaned === '' ? 'tool' : cleaned;
}

/**
 * One function name per tool, in order: the valid form of its name, or, when that is taken, the
 * same with `_2`, `_3`… (cut so the suffix fits). The first tool keeps the plain name, so the
 * names are stable as long as the configured toolset order is.
 */
export function assignFunctionNames(toolNames: readonly string[]): string[] {
  const taken = new Set<string>();
  return toolNames.map((name) => {
    const base = validFunctionName(name);
    let candidate = base;
    for (let n = 2; taken.has(candidate.toLowerCase()); n += 1) {
      const suffix = `_${n}`;
      candidate = base.slice(0, FUNCTION_NAME_MAX_LENGTH - suffix.length) + suffix;
    }
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}
