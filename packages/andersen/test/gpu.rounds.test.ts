import { describe, expect, it } from 'vitest';
import { SOLVER_ENTRY_POINTS, type SolverEntryPoint } from '../src/gpu/module/solver.wgsl';
import { foldEntries, levelEntries, roundEntries } from '../src/gpu/rounds/entries';
import { RoundGuesses } from '../src/gpu/rounds/schedule';
import { radixPasses, SOURCE_WORD_SHIFT } from '../src/gpu/worklist/sorts';

// The host's side of a round without a GPU: which entry points its submissions dispatch, in which
// order, for each combination of the settings that change them.
const settings = [true, false].flatMap((deltaBitmap) =>
  [true, false].flatMap((activeLists) =>
    [{ pulls: 2 }, undefined].map((hop) => ({ deltaBitmap, activeLists, hop })),
  ),
);

describe("a round's entry points", () => {
  it.each(settings)('are entry points of the module, in dispatch order (%o)', (s) => {
    const entries = roundEntries(s);
    const known = new Set(Object.keys(SOLVER_ENTRY_POINTS));
    for (const list of Object.values(entries)) for (const entry of list) expect(known).toContain(entry);
    // The rules end at sort_gate, which decides whether the update runs.
    expect(entries.rulesEntries.at(-1)).toBe('sort_gate');
    expect(entries.rulesEntries).toContain(s.deltaBitmap ? 'delta_bits' : 'delta_clear');
    // A round's first attempt starts with begin_iteration, which also does begin_attempt's resets.
    expect(entries.nextRulesEntries).toEqual(['begin_iteration', ...entries.rulesEntries.slice(1)]);
    expect(entries.firstAttemptEntries).toEqual(entries.rulesEntries.slice(1));
    // The update merges the worklist first, commits, then plans the merges.
    const tail = entries.hopTail;
    expect(tail.slice(0, 2)).toEqual(['mark_segments', 'apply_pairs']);
    expect(tail.slice(-3)).toEqual(['merge_rank', 'merge_count', 'guard_merge']);
    const guard: SolverEntryPoint = s.activeLists ? 'guard_pending' : 'guard_update';
    expect(tail.indexOf(guard)).toBeLessThan(tail.indexOf('update_sets'));
    // The second copy hop only in the tail that has it, before the guard that counts its room.
    const hop = s.hop !== undefined;
    expect(tail.includes('hop_pull')).toBe(hop);
    if (hop) expect(tail.indexOf('hop_pull')).toBeLessThan(tail.indexOf(guard));
    expect(entries.plainTail).toEqual(tail.filter((e) => e !== 'hop_bits' && e !== 'hop_pull'));
  });

  it('fold a class with one merge_level a level and a partial-merge tree with one merge_partials a level', () => {
    expect(foldEntries(0)).toEqual(['merge_prepare', 'merge_data', 'merge_done']);
    expect(foldEntries(3)).toEqual([
      'merge_prepare',
      'merge_level',
      'merge_level',
      'merge_level',
      'merge_data',
      'merge_done',
    ]);
    expect(levelEntries(0)).toEqual([]);
    expect(levelEntries(2)).toEqual(['merge_partials', 'merge_partials']);
  });
});

describe("the worklist's radix sorts", () => {
  it('sort the composite key once when it fits, else by source group then stably by key', () => {
    expect(radixPasses(true, 15, 9, 14)).toEqual([{ bySource: false, bits: { start: 0, end: 24 } }]);
    expect(radixPasses(false, 25, 19, 24)).toEqual([
      { bySource: true, bits: { start: SOURCE_WORD_SHIFT, end: 24 } },
      { bySource: false, bits: { start: 0, end: 25 } },
    ]);
    // Sources within one word group need no sort by source.
    expect(radixPasses(false, 3, 0, 2)).toEqual([{ bySource: false, bits: { start: 0, end: 3 } }]);
  });
});

describe('the guesses of work recorded and queued ahead', () => {
  it('follow the last rounds that sorted and merged, and leave out what sorted or merged nothing', () => {
    const guesses = new RoundGuesses({
      queueRoom: 2,
      queueExtraLevels: 1,
      smallSortPairs: 0,
      sortSizeFor: (count) => (count <= 1 ? count : 2 ** Math.ceil(Math.log2(count))),
      preparedSorts: new Set([1024, 2048, 4096]),
    });
    guesses.note(1000, 2);
    guesses.note(0, 0);
    expect(guesses.pairs).toBe(1000);
    expect(guesses.levels).toBe(2);
    guesses.note(1500, 1);
    expect([guesses.pairs, guesses.previousPairs]).toEqual([1500, 1000]);
    expect([guesses.levels, guesses.previousLevels]).toEqual([1, 2]);
  });
});
