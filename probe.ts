import { makeChecklist } from './bench/checklist.js';
import { parseMarkdown } from './src/core/plan/markdown.js';
import { parseChecklist } from './src/core/index.js';
for (const n of [1000, 10000, 20000]) {
  const s = makeChecklist(n);
  let t = performance.now(); parseMarkdown(s); const a = performance.now() - t;
  t = performance.now(); parseChecklist(s, 'x'); const b = performance.now() - t;
  const s2 = s.replace(/^  - /gm, '- ');
  t = performance.now(); parseMarkdown(s2); const c = performance.now() - t;
  const s3 = s.replace(/```\n- \[ \] not a task\n```\n/g, '');
  t = performance.now(); parseMarkdown(s3); const d = performance.now() - t;
  console.log(n, a.toFixed(0), b.toFixed(0), 'flat', c.toFixed(0), 'nofence', d.toFixed(0));
}
