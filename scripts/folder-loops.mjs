// `node scripts/folder-loops.mjs`: no folder-level import loop inside a package (a step of the test
// command, beside madge's file-level cycle check). In every folder of apps/api, apps/worker,
// libs/workflow and libs/mcp, each child (a sub-folder or a file) is a room and each import between
// two rooms an arrow; a loop of arrows through a sub-folder means that folder is not a layer: it both
// uses and is used by something beside it. The import graph is madge's (the same resolver as the
// cycle check); tests and testing helpers are left out, as they may reach into anything.
import madge from 'madge';
import path from 'node:path';

const PACKAGES = ['apps/api/src', 'apps/worker/src', 'libs/workflow/src', 'libs/mcp/src'];
const LEFT_OUT = /(\.spec\.ts$|\/testing\/)/;

const graph = (
  await madge(PACKAGES, { fileExtensions: ['ts'], tsConfig: 'tsconfig.json', baseDir: process.cwd(), excludeRegExp: [LEFT_OUT] })
).obj();

/** Arrows between the children of `folder`, each with the file import that draws it. */
function arrowsIn(folder) {
  const arrows = new Map();
  const roomOf = (file) => (file.startsWith(`${folder}/`) ? file.slice(folder.length + 1).split('/')[0] : null);
  for (const [from, targets] of Object.entries(graph)) {
    const a = roomOf(from);
    if (!a) continue;
    for (const to of targets) {
      const b = roomOf(to);
      if (!b || a === b) continue;
      const key = `${a}\0${b}`;
      if (!arrows.has(key)) arrows.set(key, `${from} → ${to}`);
    }
  }
  return arrows;
}

/** Strongly connected sets of rooms (Tarjan), only those of two rooms or more. */
function loops(arrows) {
  const next = new Map();
  for (const key of arrows.keys()) {
    const [a, b] = key.split('\0');
    if (!next.has(a)) next.set(a, []);
    if (!next.has(b)) next.set(b, []);
    next.get(a).push(b);
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  let counter = 0;
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    for (const w of next.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const set = [];
      let w;
      do set.push((w = stack.pop()));
      while (w !== v);
      if (set.length > 1) found.push(set.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

const folders = new Set();
for (const file of Object.keys(graph)) {
  for (let dir = path.posix.dirname(file); PACKAGES.some((p) => dir === p || dir.startsWith(`${p}/`)); dir = path.posix.dirname(dir)) {
    folders.add(dir);
  }
}

let problems = 0;
for (const folder of [...folders].sort()) {
  const arrows = arrowsIn(folder);
  for (const rooms of loops(arrows)) {
    if (!rooms.some((room) => !room.endsWith('.ts'))) continue; // files only: madge's cycle check names it
    problems++;
    console.log(`✗ a loop in ${folder}/ between ${rooms.join(', ')}:`);
    for (const a of rooms) for (const b of rooms) if (arrows.has(`${a}\0${b}`)) console.log(`    ${arrows.get(`${a}\0${b}`)}`);
  }
}
if (problems > 0) {
  console.log(`${problems} folder-level import loop(s): move the file that breaks the layering, or put a port (an interface) below both.`);
  process.exit(1);
}
console.log(`no folder-level import loop in ${PACKAGES.join(', ')} (${folders.size} folders)`);
