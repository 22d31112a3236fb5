import fs from 'node:fs';
const file = process.argv[2];
const top = Number(process.argv[3] ?? 40);
const p = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const counts = new Map();
for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const total = p.samples.length;
const self = new Map(), incl = new Map();
const key = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*node_modules\//, 'nm/').replace(/.*\/work\/main\//, '')}:${n.callFrame.lineNumber + 1}`;
for (const [id, c] of counts) {
  const n = byId.get(id);
  self.set(key(n), (self.get(key(n)) ?? 0) + c);
  const seen = new Set();
  let cur = id;
  while (cur !== undefined) {
    const k = key(byId.get(cur));
    if (!seen.has(k)) { incl.set(k, (incl.get(k) ?? 0) + c); seen.add(k); }
    cur = parent.get(cur);
  }
}
const pr = (m, title) => {
  console.log(`\n== ${title} (total ${total})`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(100 * v / total).toFixed(1).padStart(5)}%  ${k}`);
};
pr(self, 'self');
if (process.argv[4]) pr(incl, 'inclusive');
if (process.argv[5]) {
  const want = process.argv[5];
  const chains = new Map();
  for (const [id, c] of counts) {
    let cur = id; const path = [];
    let hit = false;
    while (cur !== undefined) { const k = key(byId.get(cur)); if (k.startsWith(want + ' ')) hit = true; if (hit) path.push(k); cur = parent.get(cur); }
    if (hit) { const s = path.slice(0, 8).join(' <- '); chains.set(s, (chains.get(s) ?? 0) + c); }
  }
  console.log(`\n== callers of ${want}`);
  for (const [k, v] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`${(100 * v / total).toFixed(2)}%  ${k}\n`);
}
