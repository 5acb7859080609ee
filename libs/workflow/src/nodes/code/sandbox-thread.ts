/** Entry of one sandbox worker thread: runs tasks one at a time, answers with their outcome. */
import { parentPort } from 'node:worker_threads';
import type { SandboxTask } from './code-errors.js';
import { loadQuickJs, runInSandbox } from './quickjs-sandbox.js';

interface TaskMessage {
  id: number;
  task: SandboxTask;
}

const port = parentPort;
if (port) {
  void loadQuickJs();
  port.on('message', ({ id, task }: TaskMessage) => {
    void runInSandbox(task).then((outcome) => port.postMessage({ id, outcome }));
  });
}
