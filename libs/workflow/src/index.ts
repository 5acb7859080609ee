// Public surface of libs/workflow. Engine exports go above; infrastructure (config,
// persistence, queue) below — apps import only from here (`#workflow`).

export * from './config/app-config.js';
export * from './queue/run-queue.js';
export * from './persistence/persistence.module.js';
export * from './config/config.module.js';
