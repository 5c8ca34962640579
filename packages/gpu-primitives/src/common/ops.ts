/** Associative operators the primitives combine u32 values with. */
export type ScanOp = 'add' | 'max' | 'min' | 'or';

/** WGSL literal of the operator's identity. */
export function opIdentityWgsl(op: ScanOp): string {
  return op === 'min' ? '0xffffffffu' : '0u';
}

/** WGSL expression combining `a` and `b` (add wraps modulo 2^32, as u32 addition does). */
export function opCombineWgsl(op: ScanOp, a: string, b: string): string {
  switch (op) {
    case 'add':
      return `(${a} + ${b})`;
    case 'max':
      return `max(${a}, ${b})`;
    case 'min':
      return `min(${a}, ${b})`;
    case 'or':
      return `(${a} | ${b})`;
  }
}

/** The operator on the CPU, with the same u32 semantics as the WGSL. */
export function opCombine(op: ScanOp): (a: number, b: number) => number {
  switch (op) {
    case 'add':
      return (a, b) => (a + b) >>> 0;
    case 'max':
      return (a, b) => Math.max(a, b);
    case 'min':
      return (a, b) => Math.min(a, b);
    case 'or':
      return (a, b) => (a | b) >>> 0;
  }
}

/** The operator's identity on the CPU. */
export function opIdentity(op: ScanOp): number {
  return op === 'min' ? 0xffff_ffff : 0;
}
