/**
 * The codes of workflow validation problems (`POST /workflows` answers them in `errors[].code`, each
 * with its JSON-pointer `path`): the one list. `ValidationIssue.code` is this union, so a node
 * type's validator or the host's checks cannot invent a spelling.
 */
export const VALIDATION_CODES = [
  // The definition's shape
  'INVALID_DEFINITION',
  'INVALID_NODE_ID',
  'DUPLICATE_NODE_ID',
  'UNKNOWN_NODE_TYPE',
  'INVALID_CONFIG',
  'INVALID_INPUTS',
  'INVALID_RETRY',
  'INVALID_TIMEOUT',
  'INVALID_VALUE_SOURCE',
  // The graph
  'MISSING_START',
  'MULTIPLE_START',
  'EDGE_INTO_START',
  'DANGLING_EDGE',
  'BAD_HANDLE',
  'CYCLE',
  'UNREACHABLE_NODE',
  // Inputs and references
  'MISSING_REQUIRED_INPUT',
  'UNKNOWN_INPUT',
  'REF_MALFORMED',
  'REF_UNKNOWN_NODE',
  'REF_NOT_UPSTREAM',
  'REF_UNKNOWN_OUTPUT',
  'TYPE_MISMATCH',
  // What nodes use
  'UNKNOWN_TOOLSET',
  'UNKNOWN_TOOL',
  'TOOL_UNUSABLE',
  'INVALID_INPUT_SCHEMA',
  // A node's own check could not run (its cause's code is in the message)
  'NODE_CHECK_FAILED',
] as const;

export type ValidationCode = (typeof VALIDATION_CODES)[number];
