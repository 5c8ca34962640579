import {
  acquireGpu,
  type GpuAdapterReport,
  type GpuContext,
  type GpuFeatures,
  type GpuLimits,
  GpuUnavailableError,
} from '@gpumorph/gpu-allocator';
import { runSelfCheck, type SelfCheckResult } from '../doctor/self-check';
import { SOFTWARE_ADAPTER_STEPS } from '../doctor/software-adapter';
import { gpuOptionsFromEnvironment } from '../environment';
import { formatBytes } from '../format';
import { type CliIo, type Colors, colorsFor } from '../io';
import { VERSION } from '../version';

/** Options of `gpumorph doctor`. */
export interface DoctorOptions {
  /** Print one JSON object instead of the human report. */
  readonly json?: boolean;
  /** Request the `subgroups` feature (default true); false checks the workgroup-memory paths. */
  readonly subgroups?: boolean;
  /** Extra Dawn toggles passed to `acquireGpu`. */
  readonly dawnFlags?: readonly string[];
}

/** What `gpumorph doctor --json` prints. */
export interface DoctorReport {
  /** The adapter, or null when none was found (analyses then use the CPU engine). */
  readonly adapter: GpuAdapterReport | null;
  readonly features: GpuFeatures | null;
  readonly limits: GpuLimits | null;
  readonly selfCheck: readonly SelfCheckResult[];
  /** True when every self-check passed (and trivially when there is no adapter). */
  readonly ok: boolean;
}

/**
 * `gpumorph doctor`: finds the WebGPU adapter, prints what it offers, and runs the GPU self-check
 * (see {@link runSelfCheck}). Returns the exit status: 0 when every check passed or no adapter
 * exists, 1 when a check failed. Without an adapter and with `GPUMORPH_REQUIRE_GPU=1`,
 * `acquireGpu` throws `GpuUnavailableError`.
 *
 * @example
 * ```ts
 * const status = await runDoctor({ json: true }, processIo());
 * ```
 */
export async function runDoctor(options: DoctorOptions, io: CliIo): Promise<number> {
  const c = colorsFor(io);
  const log = (line: string) => {
    if (!options.json) io.stderr.write(`${c.dim(line)}\n`);
  };
  log('looking for a WebGPU adapter…');
  let ctx: GpuContext | null;
  try {
    const environment = gpuOptionsFromEnvironment();
    ctx = await acquireGpu({
      ...environment,
      subgroups: options.subgroups ?? true,
      dawnFlags: [...(environment.dawnFlags ?? []), ...(options.dawnFlags ?? [])],
    });
  } catch (error) {
    // GPUMORPH_REQUIRE_GPU=1 and no adapter: still say how to get one (on stderr, so --json's
    // stdout stays empty), then fail with the error's exit status.
    if (error instanceof GpuUnavailableError) io.stderr.write(await noAdapterText(c));
    throw error;
  }
  if (!ctx) {
    if (options.json) {
      writeJson(io, { adapter: null, features: null, limits: null, selfCheck: [], ok: true });
    } else {
      io.stdout.write(await noAdapterText(c));
    }
    return 0;
  }
  try {
    if (!options.json) io.stdout.write(adapterText(ctx, c, options.subgroups ?? true));
    const selfCheck = await runSelfCheck(ctx, { onCheck: (name) => log(`self-check: ${name}`) });
    const ok = selfCheck.every((check) => check.pass);
    if (options.json) {
      writeJson(io, { adapter: ctx.adapter, features: ctx.features, limits: ctx.limits, selfCheck, ok });
    } else {
      io.stdout.write(selfCheckText(selfCheck, c));
      io.stdout.write(
        ok
          ? `\n${c.green('ok')}: the WebGPU engine can run on ${ctx}\n`
          : `\n${c.red('FAILED')}: the GPU self-check failed; use the CPU engine (engine: 'cpu') and report this\n`,
      );
    }
    return ok ? 0 : 1;
  } finally {
    ctx.destroy();
  }
}

function writeJson(io: CliIo, report: DoctorReport): void {
  io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

async function webgpuInstalled(): Promise<boolean> {
  try {
    const specifier = 'webgpu';
    await import(/* @vite-ignore */ specifier);
    return true;
  } catch {
    return false;
  }
}

async function noAdapterText(c: Colors): Promise<string> {
  const lines = [
    `${c.yellow('No WebGPU adapter found.')} Analyses will use the CPU engine: the same answers, without the GPU.`,
    '',
  ];
  if (!(await webgpuInstalled())) {
    lines.push(
      "The optional 'webgpu' package (Dawn for Node) is not installed. Install it next to gpumorph:",
      '',
      `    ${c.cyan('npm install webgpu')}`,
      '',
    );
  }
  lines.push(
    'With no GPU driver, a software adapter (Mesa lavapipe, on the CPU) still runs the WebGPU engine.',
    'On Debian bookworm, as root (Mesa from bookworm-backports: bookworm’s own Mesa 22 is too old for Dawn):',
    '',
    ...SOFTWARE_ADAPTER_STEPS.map((step) => `    ${c.cyan(step)}`),
    '',
    'Elsewhere, install libvulkan1 and a recent mesa-vulkan-drivers (Mesa 25 is what gpumorph is tested with).',
    `Then run ${c.bold('gpumorph doctor')} again. GPUMORPH_REQUIRE_GPU=1 turns a missing adapter into an error.`,
    '',
  );
  return lines.join('\n');
}

const KEY_LIMITS: readonly (keyof GpuLimits)[] = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'minStorageBufferOffsetAlignment',
];

function adapterText(ctx: GpuContext, c: Colors, subgroupsRequested: boolean): string {
  const a = ctx.adapter;
  const sizes =
    a.subgroupMinSize === a.subgroupMaxSize
      ? `${a.subgroupMinSize}`
      : `${a.subgroupMinSize}–${a.subgroupMaxSize}`;
  let subgroups: string;
  if (ctx.features.subgroups) subgroups = `in use, size ${sizes}`;
  else if (!subgroupsRequested) subgroups = 'off (--no-subgroups): kernels use their workgroup-memory paths';
  else subgroups = 'not offered: kernels use their workgroup-memory paths';
  const field = (name: string, value: string, width = 14) =>
    `  ${c.dim(name.padEnd(width))}${value || c.dim('(not reported)')}`;
  const kind = a.software
    ? `${c.yellow('software')} (runs on the CPU: correct, but its timings say nothing about GPUs)`
    : c.green('hardware');
  const limits = KEY_LIMITS.map((name) => {
    const value = ctx.limits[name];
    const shown = /Size$/.test(name) ? `${formatBytes(value)} (${value})` : String(value);
    return field(name, shown, 36);
  });
  return [
    `${c.bold('gpumorph doctor')} ${VERSION} — node ${process.version}, ${process.platform}-${process.arch}`,
    '',
    c.bold('Adapter'),
    field('description', a.description),
    field('backend', a.backend),
    field('vendor', a.vendor),
    field('architecture', a.architecture),
    field('device', a.device),
    field('kind', kind),
    field('subgroups', subgroups),
    field(
      'timestamps',
      ctx.features.timestampQuery ? 'timestamp-query in use' : 'no timestamp-query: wall-clock timing',
    ),
    field(
      'robustness',
      a.robustness
        ? 'on: shader indices clamped'
        : 'off: gpumorph runs only its own shaders (GPUMORPH_ROBUSTNESS=1 turns the clamps on)',
    ),
    field('features', a.features.join(', ')),
    '',
    c.bold('Limits'),
    ...limits,
    '',
  ].join('\n');
}

function selfCheckText(results: readonly SelfCheckResult[], c: Colors): string {
  const lines = results.map((r) => {
    const mark = r.pass ? c.green('pass') : c.red('FAIL');
    const detail = r.pass ? c.dim(r.detail) : c.red(r.detail);
    return `  ${mark}  ${r.name} ${c.dim(`(${r.ms.toFixed(1)} ms)`)}\n        ${detail}`;
  });
  return `\n${c.bold('Self-check')}\n${lines.join('\n')}\n`;
}
