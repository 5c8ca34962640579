// The wide sparse bit vector of @gpumorph/sparse-bitvector, used directly: points-to sets as
// linked lists of 128-byte elements (960 members each) in one shared pool. Set operations
// return whether they changed the set, which is what a worklist solver needs.
//
//   npx tsx examples/sparse-bitvector/sets.ts
import { SparseBitVectorPool } from '@gpumorph/sparse-bitvector';

const pool = new SparseBitVectorPool();
const ptsP = pool.fromArray([3, 961, 5000]); // 3 elements: members lie in 3 different 960-blocks
const ptsQ = pool.fromArray([3, 4]);
console.log(`p = ${ptsP} (${ptsP.count()} members)`);
console.log(`q = ${ptsQ}`);

console.log(`q ∪= p changed q: ${ptsQ.unionWith(ptsP)}; q = ${ptsQ}`);
console.log(`q ∪= p again changed q: ${ptsQ.unionWith(ptsP)}`); // false: the fixpoint test

// Difference propagation: only what is new since the last visit is pushed along an edge.
const seen = pool.fromArray([3, 961]);
const delta = pool.create();
delta.setToDifference(ptsQ, seen);
console.log(`new since last visit: ${delta}`);

// Pointer arithmetic p + 1 within each object's bounds (objects here end at member + 2).
const shifted = pool.create();
shifted.unionWithShifted(ptsP, 1, (member) => member + 2);
console.log(`p + 1 = ${shifted}`);

console.log(`p ⊆ q: ${ptsQ.contains(ptsP)}, p ∩ {4} ≠ ∅: ${ptsP.intersects(pool.fromArray([4]))}`);
console.log(`pool: ${pool}`);
