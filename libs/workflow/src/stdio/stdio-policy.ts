import type { AppConfig } from '../config/app-config.js';

/** Why a local (stdio) server may not be started; the API answers 403 with this code. */
export type StdioRefusalCode = 'STDIO_DISABLED' | 'STDIO_COMMAND_NOT_ALLOWED';

/** Thrown where a stdio toolset would be started against the operator's policy (API and worker alike). */
export class StdioRefusedError extends Error {
  constructor(
    readonly code: StdioRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'StdioRefusedError';
  }
}

/**
 * The operator's gate on local processes: nothing unless `STDIO_TOOLSETS=on`, and then only a
 * command written exactly as listed in `STDIO_COMMANDS` (`npx` allows `npx`, not
 * `/usr/bin/npx`; an absolute path allows that file only). Exact matching keeps the rule one an
 * operator can read: no PATH lookup or basename comparison that `./npx` or `/tmp/x/npx` could pass.
 */
export function stdioRefusal(policy: AppConfig['stdio'], command: string): StdioRefusedError | undefined {
  if (!policy.enabled) {
    return new StdioRefusedError(
      'STDIO_DISABLED',
      'Local (stdio) toolsets are disabled on this server (the operator enables them with STDIO_TOOLSETS=on)',
    );
  }
  if (!policy.commands.includes(command)) {
    return new StdioRefusedError(
      'STDIO_COMMAND_NOT_ALLOWED',
      `The command "${command}" is not in this server's allow-list (STDIO_COMMANDS)`,
    );
  }
  return undefined;
}
