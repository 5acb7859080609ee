import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * Boundaries, by package and by path. ESLint's no-restricted-imports matches the import text, so a
 * path rule is written per depth: from a file d folders below a room, `../` × (d + 1) reaches the
 * package's src/. Every rule's message starts with its name in brackets; lint/fixtures/ holds one
 * file per rule that lint must refuse (lint/boundaries.spec.ts lints each as if it stood where its
 * first line says), and those files are left out of the normal run.
 */
const DEPTHS = [0, 1, 2, 3];
const SPECS = ['**/*.spec.ts', '**/testing/**'];
const up = (depth) => `(\\.\\./){${depth + 1}}`;
const roomsRegex = (rooms) => `(${rooms.join('|')})`;
const filesAt = (folder, depth) => `${folder}/${'*/'.repeat(depth)}*.ts`;

/** One config block per depth below `folder`: its files may import neither these packages nor these rooms of src/. */
function boundary({ name, folder, packages = [], aliases = [], rooms = [], rootFiles = [], leaveSrc = false, message, ignores = SPECS }) {
  return DEPTHS.map((depth) => {
    const patterns = [];
    if (packages.length > 0) patterns.push({ group: packages, message: `[${name}] ${message}` });
    // `#…` starts a comment in the gitignore syntax of `group`: the package aliases are matched by regex.
    if (aliases.length > 0) patterns.push({ regex: `^${roomsRegex(aliases)}$`, message: `[${name}] ${message}` });
    if (rooms.length > 0) patterns.push({ regex: `^${up(depth)}${roomsRegex(rooms)}/`, message: `[${name}] ${message}` });
    if (rootFiles.length > 0) patterns.push({ regex: `^${up(depth)}${roomsRegex(rootFiles)}\\.js$`, message: `[${name}] ${message}` });
    if (leaveSrc) patterns.push({ regex: `^${up(depth)}\\.\\./`, message: `[${name}] ${message}` });
    return { files: [filesAt(folder, depth)], ignores, rules: { 'no-restricted-imports': ['error', { patterns }] } };
  });
}

const INFRASTRUCTURE = ['@nestjs/*', 'mongoose', 'bullmq', 'ioredis', 'openai'];
const WORKFLOW_ROOMS_ABOVE_NODES = ['persistence', 'queue', 'config', 'runtime', 'toolsets', 'metrics', 'secrets', 'outbound', 'stdio'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**', 'lint/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  ...boundary({
    name: 'engine-is-pure',
    folder: 'libs/workflow/src/engine',
    packages: [...INFRASTRUCTURE, '@modelcontextprotocol/*'],
    aliases: ['#mcp', '#mcp/testing', '#workflow', '#workflow/nest'],
    rooms: [...WORKFLOW_ROOMS_ABOVE_NODES, 'nodes', 'llm'],
    rootFiles: ['index', 'nest'],
    leaveSrc: true,
    message:
      'the engine is pure TypeScript: it talks to ports (engine/types.ts), never to node types, persistence, queues or infrastructure.',
    ignores: ['**/*.spec.ts'],
  }),
  ...boundary({
    name: 'nodes-are-pure',
    folder: 'libs/workflow/src/nodes',
    packages: INFRASTRUCTURE,
    aliases: ['#workflow/nest'],
    rooms: [...WORKFLOW_ROOMS_ABOVE_NODES, 'llm'],
    rootFiles: ['index', 'nest'],
    leaveSrc: true,
    message: 'node types see the engine and the ports handed to them (extras), never persistence, queues, config or Nest.',
  }),
  {
    files: ['libs/workflow/src/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: INFRASTRUCTURE, message: '[nodes-are-pure] #workflow is the pure entry point.' },
            { regex: '^#workflow/nest$', message: '[nodes-are-pure] #workflow is the pure entry point.' },
            {
              regex: `^\\./${roomsRegex([...WORKFLOW_ROOMS_ABOVE_NODES, 'llm'])}/`,
              message: '[nodes-are-pure] #workflow is the pure entry point.',
            },
          ],
        },
      ],
    },
  },
  ...boundary({
    name: 'persistence-is-below',
    folder: 'libs/workflow/src/persistence',
    rooms: ['toolsets', 'llm', 'queue', 'runtime', 'metrics', 'nodes'],
    rootFiles: ['index', 'nest'],
    leaveSrc: true,
    message:
      'persistence holds schemas and repositories: it stands below toolsets/, llm/, queue/ and node types (a port the upper room owns, or a move, instead).',
  }),
  ...boundary({
    name: 'mcp-stands-alone',
    folder: 'libs/mcp/src',
    packages: ['@nestjs/*', 'mongoose', 'bullmq', 'ioredis'],
    aliases: ['#workflow', '#workflow/nest'],
    leaveSrc: true,
    message: 'libs/mcp is the MCP client alone: no Nest, no store, no queue, no workflow.',
  }),
  {
    // Its own rule (typescript-eslint's, which lets type imports through), so it adds to the
    // boundaries above instead of replacing their `no-restricted-imports` options.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: [...SPECS, 'libs/workflow/src/queue/job-queues.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'bullmq',
              importNames: ['Queue', 'Worker', 'QueueEvents', 'FlowProducer'],
              allowTypeImports: true,
              message:
                '[one-queue-owner] queues and workers are opened by libs/workflow/src/queue/job-queues.ts (openQueue, openWorker), where every queue has its entry.',
            },
          ],
        },
      ],
    },
  },
  ...['apps/api/src', 'apps/worker/src'].flatMap((folder) =>
    boundary({
      name: 'apps-above-the-store',
      folder,
      packages: ['mongoose', '@nestjs/mongoose', 'mongodb'],
      aliases: ['#mcp/testing'],
      leaveSrc: true,
      message:
        "the apps reach storage through the repositories of #workflow/nest and other packages through their aliases (#workflow, #workflow/nest, #mcp), never mongoose or another package's files.",
    }),
  ),
);
