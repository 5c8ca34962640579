import { resolve } from 'node:path';
import { prepareProgram } from '../packages/andersen/src/gpu/prepare';
import * as A from '../packages/andersen/src/index';

for (const name of ['php', 'linux']) {
  const input = await A.readHardekopf(
    { prefix: resolve('../shared/data/andersen/hardekopf', name) },
    { nonObjectAddress: 'make-object' },
  );
  const hcd = A.appendOfflineMerges(input.hcd, A.computeHvn(input.program).merges);
  const t = performance.now();
  const p = prepareProgram(input.program, hcd);
  console.log(
    name,
    'prepare ms',
    (performance.now() - t).toFixed(0),
    'n',
    p.nodeCount,
    'pts MiB',
    ((p.initialPoints.words.length * 4) / 2 ** 20).toFixed(1),
    'edges MiB',
    ((p.initialEdges.words.length * 4) / 2 ** 20).toFixed(1),
    'rules MiB',
    ((p.rules.length * 4) / 2 ** 20).toFixed(1),
    'nodes MiB',
    ((p.nodes.length * 4) / 2 ** 20).toFixed(1),
  );
}
