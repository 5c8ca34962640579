/**
 * The soundness oracle: a concrete interpreter runs each program and records every call edge
 * (source call site → source lambda) and every source closure that reaches a source variable;
 * the analysis must contain every recorded fact. Corpus programs must run to their end (so the
 * check is not vacuous); generated programs may stop early (their recorded facts still count).
 * GPUMORPH_SOUNDNESS_RUNS sets the number of generated programs (a few hundred by default).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomSchemeProgram } from '../src/testing/programs';
import { checkSoundness } from './concrete/check';
import { here } from './data';

const corpusDir = resolve(here, 'corpus');
const corpus = readdirSync(corpusDir)
  .filter((f) => f.endsWith('.scm'))
  .sort();
const runs = Number(process.env.GPUMORPH_SOUNDNESS_RUNS ?? '300');

describe('the concrete-run oracle on the corpus', () => {
  it('has at least 40 programs', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
  });

  it.each(corpus)('%s: runs to its end and every recorded fact is in the analysis', (name) => {
    const report = checkSoundness(readFileSync(resolve(corpusDir, name), 'utf8'), name, 5_000_000);
    expect({ end: report.facts.end, detail: report.facts.detail }).toEqual({
      end: 'done',
      detail: undefined,
    });
    expect(report.facts.calls.size).toBeGreaterThan(0);
    expect(report.missed).toEqual([]);
  });
});

describe('the concrete-run oracle on generated programs', () => {
  it(`misses no fact on ${runs} random programs`, () => {
    let withFacts = 0;
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 6 }), (seed, size) => {
        const text = randomSchemeProgram(seed, size);
        const report = checkSoundness(text, 'random.scm', 20_000);
        if (report.facts.calls.size + report.facts.flows.size > 0) withFacts++;
        expect(report.missed, text).toEqual([]);
      }),
      { numRuns: runs },
    );
    // Most generated programs make some call before they stop.
    expect(withFacts).toBeGreaterThan(runs / 4);
  });
});
