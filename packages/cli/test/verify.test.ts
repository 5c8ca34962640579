import { INVALID_ELEMENT } from '@gpumorph/gpu-allocator';
import { describe, expect, it } from 'vitest';
import { probeRequests, verifyProbe } from '../src/doctor/verify';

const WORDS = 4;

/** What a correct allocator does: serves invocations in order until the pool runs out. */
function simulate(requests: Uint32Array, rounds: number, capacity: number) {
  const out = new Uint32Array(requests.length * rounds).fill(INVALID_ELEMENT);
  const elements = new Uint32Array(capacity * WORDS);
  let next = 0;
  requests.forEach((asked, i) => {
    for (let r = 0; r < asked; r++) {
      if (next < capacity) {
        out[i * rounds + r] = next;
        elements[next * WORDS] = i;
      }
      next++;
    }
  });
  return { out, elements, total: next };
}

describe('probeRequests', () => {
  it('is deterministic and within 0..max', () => {
    const a = probeRequests(4096, 3);
    expect(a).toEqual(probeRequests(4096, 3));
    expect(Math.max(...a)).toBe(3);
    expect(Math.min(...a)).toBe(0);
    for (const value of [0, 1, 2, 3]) expect(a.filter((r) => r === value).length).toBeGreaterThan(800);
  });
});

describe('verifyProbe', () => {
  const requests = probeRequests(64, 3);
  const rounds = 3;

  it('accepts a correct outcome, with or without exhaustion', () => {
    const full = simulate(requests, rounds, 10_000);
    expect(
      verifyProbe({ requests, rounds, ...full, elementWords: WORDS, limit: full.total }).problems,
    ).toEqual([]);
    const half = Math.floor(full.total / 2);
    const cut = simulate(requests, rounds, half);
    const verdict = verifyProbe({ requests, rounds, ...cut, elementWords: WORDS, limit: half });
    expect(verdict).toEqual({ valid: half, problems: [] });
  });

  const corruptions: [string, (o: { out: Uint32Array; elements: Uint32Array }) => void, RegExp][] = [
    ['a duplicate', (o) => o.out.set([o.out[firstSlot()] ?? 0], secondSlot()), /element 0 handed out twice/],
    ['an index out of range', (o) => o.out.set([999_999], firstSlot()), /outside \[0, /],
    ['a wrong word 0', (o) => o.elements.set([12345], 0), /word 0 is 12345/],
    [
      'a missing element',
      (o) => o.out.set([INVALID_ELEMENT], firstSlot()),
      /no element although the pool had room/,
    ],
    ['an element nobody asked for', (o) => o.out.set([0], unaskedSlot()), /without asking/],
  ];
  function firstSlot() {
    return requests.findIndex((r) => r > 0) * rounds;
  }
  function secondSlot() {
    const i = requests.findIndex((r, k) => r > 0 && k > requests.findIndex((q) => q > 0));
    return i * rounds;
  }
  function unaskedSlot() {
    const i = requests.findIndex((r) => r < rounds);
    return i * rounds + (requests[i] ?? 0);
  }

  it.each(corruptions)('rejects %s', (_name, corrupt, message) => {
    const outcome = simulate(requests, rounds, 10_000);
    corrupt(outcome);
    const verdict = verifyProbe({ requests, rounds, ...outcome, elementWords: WORDS, limit: outcome.total });
    expect(verdict.problems.join('\n')).toMatch(message);
  });
});
