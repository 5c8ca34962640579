import { GpumorphError, GpuUnavailableError, GpuValidationError } from '@gpumorph/gpu-allocator';
import { CommanderError } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT_GPU, EXIT_INTERNAL, EXIT_USAGE, InputFileError, reportCliError } from '../src/errors';

function report(error: unknown): { code: number; text: string } {
  let text = '';
  const code = reportCliError(error, { stderr: { write: (s: string) => (text += s) }, color: false });
  return { code, text };
}

describe('reportCliError', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('maps a GPU error to one line and status 3', () => {
    const { code, text } = report(new GpuUnavailableError('no WebGPU adapter (none)'));
    expect(code).toBe(EXIT_GPU);
    expect(text).toBe('error: no WebGPU adapter (none)\n');
  });

  it('maps input errors (unreadable files, parse errors) to status 2', () => {
    const missing = Object.assign(new Error("ENOENT: no such file or directory, open 'x.scm'"), {
      code: 'ENOENT',
      path: 'x.scm',
    });
    expect(report(new InputFileError('x.scm', { cause: missing }))).toEqual({
      code: EXIT_USAGE,
      text: "error: x.scm: cannot read the file (ENOENT: no such file or directory, open 'x.scm')\n",
    });
    expect(report(missing).code).toBe(EXIT_USAGE);
  });

  it('maps other GpumorphErrors to status 4 without the debugging hint', () => {
    expect(report(new GpumorphError('pool: capacity 0'))).toEqual({
      code: EXIT_INTERNAL,
      text: 'error: pool: capacity 0\n',
    });
  });

  it('adds the cause when the message does not already contain it', () => {
    const cause = { message: 'Invalid ShaderModule "probe"' }; // a GPUError is not an Error instance
    const { text } = report(new GpuValidationError('alloc probe: validation failed', 'probe', [], { cause }));
    expect(text).toBe('error: alloc probe: validation failed (cause: Invalid ShaderModule "probe")\n');
    expect(report(new GpumorphError('x: boom', { cause: new Error('boom') })).text).toBe('error: x: boom\n');
  });

  it('maps commander usage errors to status 2 and help/version exits to 0', () => {
    const usage = report(new CommanderError(1, 'commander.unknownCommand', "error: unknown command 'x'"));
    expect(usage.code).toBe(EXIT_USAGE);
    expect(usage.text).toBe("error: unknown command 'x' (see gpumorph --help)\n");
    expect(report(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toEqual({
      code: 0,
      text: '',
    });
    expect(report(new CommanderError(0, 'commander.version', '0.1.0'))).toEqual({ code: 0, text: '' });
  });

  it('prints the stack of an unexpected error only with GPUMORPH_DEBUG=1', () => {
    vi.stubEnv('GPUMORPH_DEBUG', '');
    const plain = report(new TypeError('x is not a function'));
    expect(plain.code).toBe(EXIT_INTERNAL);
    expect(plain.text).toMatch(/^error: x is not a function\n/);
    expect(plain.text).not.toMatch(/^\s+at /m);
    vi.stubEnv('GPUMORPH_DEBUG', '1');
    expect(report(new TypeError('x is not a function')).text).toMatch(/^\s+at /m);
  });
});
