// Run (after `npm run build`):
//   GPUMORPH_DATA=../shared/data B=gcc,perl,python,php,linux node scripts/andersen-shared-sets.mjs
//
// How much of the representatives' final points-to sets the distinct sets hold (CPU engine): the
// figures behind the WebGPU engine's shared readback in the README (gcc and python 5.5%, perl
// 12.9%, php 4.9%, linux 3.2% of the elements).
import { resolve } from 'node:path';
import * as A from '../packages/andersen/dist/index.js';

const dir = resolve(process.env.GPUMORPH_DATA ?? '../shared/data', 'andersen/hardekopf');
for (const name of (process.env.B ?? 'python').split(',')) {
  const input = await A.readHardekopf({ prefix: resolve(dir, name) }, { nonObjectAddress: 'make-object' });
  const hcd = A.appendOfflineMerges(input.hcd, A.computeHvn(input.program).merges);
  const result = await A.solveAndersen(input.program, { engine: 'cpu', hcd });
  const seen = new Set();
  let representatives = 0;
  let elements = 0;
  let distinctElements = 0;
  for (let v = 0; v < result.nodeCount; v++) {
    if (result.representative(v) !== v) continue;
    const members = result.pointsTo(v);
    if (members.length === 0) continue;
    representatives++;
    // One 128-byte element per 960-member range the set touches.
    const count = new Set(Array.from(members, (m) => Math.floor(m / 960))).size;
    elements += count;
    const key = members.join(',');
    if (!seen.has(key)) {
      seen.add(key);
      distinctElements += count;
    }
  }
  console.log(
    `${name}: ${representatives} representatives with a set, ${seen.size} distinct; ` +
      `elements ${elements}, of them in distinct sets ${distinctElements} (${((100 * distinctElements) / elements).toFixed(1)}%)`,
  );
}
