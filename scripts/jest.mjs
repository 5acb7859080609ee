// `npm test -- <pattern>` / `npm run test:e2e -- <pattern>`: runs Jest (native ESM mode) on one
// project. The project flag goes last because Jest's --selectProjects swallows what follows it.
import { spawnSync } from 'node:child_process';

const [project, ...args] = process.argv.slice(2);
// e2e: worker processes replaced when they grow (the files boot Nest apps inside Jest; see scripts/test.sh).
const extra = project === 'e2e' ? ['--maxWorkers=2', '--workerIdleMemoryLimit=1536MB'] : [];
const result = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    'node_modules/jest/bin/jest.js',
    ...args,
    ...extra,
    '--selectProjects',
    project,
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
