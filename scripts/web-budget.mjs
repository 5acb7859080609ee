#!/usr/bin/env node
// The web console's JavaScript budget: every .js file vite build wrote to dist/web/assets,
// gzipped (what a browser downloads), summed and held to the budget. Prints the figure.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 350;
const assets = join(import.meta.dirname, '..', 'dist', 'web', 'assets');
const files = readdirSync(assets).filter((name) => name.endsWith('.js'));
const bytes = files.reduce((sum, name) => sum + gzipSync(readFileSync(join(assets, name)), { level: 9 }).length, 0);
const kb = bytes / 1024;
console.log(`web console: JavaScript ${kb.toFixed(1)} KB gzipped in ${files.length} file(s) (budget ${BUDGET_KB} KB)`);
if (files.length === 0 || kb > BUDGET_KB) process.exit(1);
