// Native ESM Jest: NestJS 12 ships ESM only, so the whole repo is ESM ("type": "module")
// and Jest runs with --experimental-vm-modules (see docs/architecture.md, "Module system").
const tsJest = ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }];
const shared = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': tsJest },
  moduleNameMapper: {
    '^#client$': '<rootDir>/libs/client/src/index.ts',
    '^#mcp$': '<rootDir>/libs/mcp/src/index.ts',
    '^#mcp/testing$': '<rootDir>/libs/mcp/src/testing/index.ts',
    '^#workflow$': '<rootDir>/libs/workflow/src/index.ts',
    '^#workflow/nest$': '<rootDir>/libs/workflow/src/nest.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  // One transform cache per checkout: several checkouts on one machine shared /tmp's default
  // cache, and one's ESM transforms were served to another ("exports is not defined").
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
};

export default {
  // e2e hooks boot real stacks: 30 s where a test or hook names no time of its own, instead of Jest's
  // 5 s (a project-level testTimeout is not applied: it has to stand here).
  testTimeout: 30_000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,lint,bench}/**/*.spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
