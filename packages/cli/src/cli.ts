import { statSync } from 'node:fs';
import { benchSuiteNames, benchSuites } from '@gpumorph/bench';
import { Command, InvalidArgumentError, Option } from 'commander';
import { runAndersenSolve } from './commands/andersen';
import { runAndersenLl } from './commands/andersen-ll';
import { BENCH_ENGINES, runBench } from './commands/bench';
import { runCfa } from './commands/cfa';
import { runDoctor } from './commands/doctor';
import { runOctagon } from './commands/octagon';
import { EXIT_FAILURE, EXIT_GPU, EXIT_INTERNAL, EXIT_USAGE } from './errors';
import { type CliIo, processIo } from './io';
import { VERSION } from './version';

function parseEngines(value: string): string[] {
  const engines = value
    .split(',')
    .map((engine) => engine.trim())
    .filter(Boolean);
  const unknown = engines.filter((engine) => !(BENCH_ENGINES as readonly string[]).includes(engine));
  if (engines.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`engines are a comma-separated subset of ${BENCH_ENGINES.join(',')}`);
  }
  return [...new Set(engines)];
}

/** The `--json` option's help of every analysis command (they share one shape: see report.ts). */
const JSON_OPTION_HELP =
  'print one JSON object: { command, input, engine, adapter, sizes, timings, result, ok }';

/** What `--help` adds under a command's options: examples, and what its exit status 1 means. */
interface CommandHelp {
  /** Command lines after `gpumorph`, each with a `#` comment. */
  readonly examples: readonly string[];
  /** When this command exits with status 1 (omit for commands that have no checks). */
  readonly failure?: string;
}

const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  '': {
    examples: [
      'doctor                      # is there a WebGPU adapter, and does it work?',
      'andersen solve --input examples/andersen/callbacks.constraints.txt --print',
      'cfa examples/eigencfa/church.scm --json',
      'octagon examples/octagon/count.oct',
      'bench allocator --quick',
    ],
  },
  doctor: {
    examples: [
      'doctor                      # the adapter, its limits, and the allocator self-check',
      'doctor --json               # the same as one JSON object',
      'doctor --no-subgroups       # check the workgroup-memory paths',
    ],
    failure: 'a self-check failed (no adapter is not a failure: analyses then use the CPU engine)',
  },
  bench: {
    examples: [
      'bench                       # every suite, WebGPU and CPU',
      'bench primitives --quick --engine cpu',
      'bench andersen --json results/andersen.json',
    ],
  },
  andersen: {
    examples: [
      'andersen solve --input examples/andersen/callbacks.constraints.txt --print',
      'andersen ll prog.ll --alias-report',
    ],
  },
  'andersen solve': {
    examples: [
      'andersen solve --input examples/andersen/callbacks.constraints.txt --print',
      'andersen solve --input ../shared/data/andersen/hardekopf/perl   # verified against the reference',
      'andersen solve --nodes x_nodes.txt --constraints x_constraints.txt --offline-hcd --json',
      'andersen solve --input prog.gmc --engine webgpu --out prog.pts',
    ],
    failure: 'the points-to sets differ from the reference (--verify, or a Hardekopf _correct_soln)',
  },
  'andersen ll': {
    examples: [
      'andersen ll prog.ll                  # call graph and sizes',
      'andersen ll prog.ll --alias-report   # judge the MAYALIAS/NOALIAS calls of the module',
      'andersen ll prog.ll --print --engine cpu',
      'andersen ll main.ll util.ll --call-graph dot   # whole program, linked by symbol',
      "andersen ll prog.ll --alias '%p in @main,%q in @main'",
      '(make prog.ll with: clang-16 -S -emit-llvm -O0 -Xclang -disable-O0-optnone -g prog.c, then opt-16 -passes=mem2reg)',
    ],
    failure: 'an alias check of --alias-report failed, or the module makes no check',
  },
  cfa: {
    examples: [
      'cfa examples/eigencfa/church.scm               # flow sets and callees',
      'cfa examples/eigencfa/queue.scm --json --engine cpu',
      'cfa --matrices ../shared/data/eigencfa/8       # a data-folder program',
    ],
  },
  octagon: {
    examples: [
      'octagon examples/octagon/count.oct',
      'octagon examples/octagon/relational.oct --loops-only --engine exact',
      'octagon examples/octagon/unproved.oct --json   # exit status 1: not everything is proved',
      'octagon examples/octagon/reals.oct   # reals, / and %; exit status 1: one check is not proved',
    ],
    failure: 'an assertion or an array-bound check is not proved',
  },
};

/** Why the options of `andersen solve` contradict one another or mean nothing together, if they do. */
function andersenSolveConflict(
  options: {
    input?: string;
    nodes?: string;
    constraints?: string;
    hcd: boolean | string;
    json?: boolean;
    print?: boolean;
    offlineHcd?: boolean;
    hvn?: boolean;
  },
  command: Command,
): string | undefined {
  const given = (name: string) => command.getOptionValueSource(name) === 'cli';
  if (given('offlineEngine') && !options.offlineHcd && !options.hvn) {
    return '--offline-engine chooses where --offline-hcd and --hvn run; give one of them';
  }
  const inputIsFile = options.input !== undefined && isFileSync(options.input);
  if (inputIsFile && given('constraintSet')) {
    return `--constraint-set chooses a file of a Hardekopf prefix; ${options.input} is one file`;
  }
  if (inputIsFile && options.hcd === false) {
    return `--no-hcd: ${options.input} is a gpumorph-constraints file, which has no HCD table`;
  }
  if (options.input !== undefined) {
    const byRole = ['nodes', 'constraints'].filter(given);
    if (byRole.length > 0 || typeof options.hcd === 'string') {
      return `--input names the whole input; it cannot be combined with ${[...byRole, ...(typeof options.hcd === 'string' ? ['hcd'] : [])].map((o) => `--${o}`).join(', ')}`;
    }
  } else if (given('constraintSet')) {
    return '--constraint-set chooses a file of an --input <prefix>; with --nodes and --constraints, name the file';
  }
  if (options.print && options.json) return '--print writes text, --json one JSON object: give one of them';
  if (
    options.hcd === false &&
    options.input !== undefined &&
    command.getOptionValue('constraintSet') !== 'raw'
  ) {
    return (
      "--no-hcd needs --constraint-set raw: the after-HCD constraints have the HCD table's offline merges " +
      'applied, and without the table the merged variables would get no sets'
    );
  }
  return undefined;
}

function isFileSync(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The `--help` epilogue of the command at `path` (`''` for the program itself). */
function helpEpilogue(path: string): string {
  const help = COMMAND_HELP[path];
  if (!help) throw new Error(`no help examples for 'gpumorph ${path}': add them to COMMAND_HELP`);
  const lines = [
    '',
    'Examples:',
    ...help.examples.map((e) => (e.startsWith('(') ? `  ${e}` : `  $ gpumorph ${e}`)),
  ];
  lines.push(
    '',
    'Exit status:',
    '  0 success',
    ...(help.failure ? [`  ${EXIT_FAILURE} ${help.failure}`] : []),
    `  ${EXIT_USAGE} usage error, or an input file that cannot be read or parsed`,
    `  ${EXIT_GPU} no WebGPU adapter where one is required (--engine webgpu, GPUMORPH_REQUIRE_GPU=1), or a WebGPU error`,
    `  ${EXIT_INTERNAL} an unexpected error (GPUMORPH_DEBUG=1 prints its stack)`,
  );
  return lines.join('\n');
}

/** Adds {@link helpEpilogue} to `command` and to every subcommand under it. */
function addHelpEpilogues(command: Command, path: string): void {
  command.addHelpText('after', helpEpilogue(path));
  for (const sub of command.commands) addHelpEpilogues(sub, path ? `${path} ${sub.name()}` : sub.name());
}

/**
 * Builds the `gpumorph` commander program. It never calls `process.exit`: commander's exits
 * (help, version, usage errors) are thrown as `CommanderError`s (`exitOverride`), and commands
 * report their exit status through `setStatus`. Output goes to `io`.
 *
 * @example
 * ```ts
 * let status = 0;
 * const program = createProgram(processIo(), (code) => (status = code));
 * await program.parseAsync(['doctor', '--json'], { from: 'user' });
 * ```
 */
export function createProgram(
  io: CliIo = processIo(),
  setStatus: (code: number) => void = () => {},
): Command {
  const program = new Command('gpumorph')
    .description(
      'GPU data structures and program analyses on WebGPU, with a CPU engine that gives the same answers',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Errors are printed once, by reportCliError, with the exit status they map to.
      outputError: () => {},
    })
    .showSuggestionAfterError(true);

  program
    .command('doctor')
    .description(
      'find the WebGPU adapter, print what it offers, and self-check the element-pool allocator on it',
    )
    .option('--json', 'print one JSON object (adapter, features, limits, selfCheck, ok)')
    .option('--no-subgroups', 'leave the subgroups feature off (checks the workgroup-memory paths)')
    .option('--dawn-flag <flag...>', 'extra Dawn toggles, e.g. enable-dawn-features=allow_unsafe_apis')
    .action(async (options: { json?: boolean; subgroups: boolean; dawnFlag?: string[] }) => {
      setStatus(
        await runDoctor(
          { json: options.json ?? false, subgroups: options.subgroups, dawnFlags: options.dawnFlag ?? [] },
          io,
        ),
      );
    });

  const names = benchSuiteNames();
  program
    .command('bench')
    .description('run benchmark suites on the WebGPU and CPU engines and print one table per suite')
    .argument('[suites...]', `suites to run (default: all of ${names.join(', ')})`)
    .option('--json <file>', 'also write all reports as JSON to <file>')
    .addOption(
      new Option('--engine <list>', `engines to run, comma-separated (${BENCH_ENGINES.join(', ')})`)
        .default(['webgpu', 'cpu'], 'webgpu,cpu')
        .argParser(parseEngines),
    )
    .option('--quick', 'smaller sizes and fewer runs (smoke runs, software adapters)')
    .action(
      async (
        suiteNames: string[],
        options: { json?: string; engine: string[]; quick?: boolean },
        command: Command,
      ) => {
        const unknown = suiteNames.filter((name) => !Object.hasOwn(benchSuites, name));
        if (unknown.length > 0) {
          command.error(
            `unknown bench suite${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `'${n}'`).join(', ')} ` +
              `(known: ${names.join(', ')})`,
            { exitCode: EXIT_USAGE, code: 'gpumorph.unknownSuite' },
          );
        }
        const chosen = suiteNames.length > 0 ? [...new Set(suiteNames)] : names;
        const suites = chosen.flatMap((name) => benchSuites[name] ?? []);
        setStatus(
          await runBench(
            { suites, engines: options.engine, quick: options.quick ?? false, json: options.json },
            io,
          ),
        );
      },
    );

  const andersen = program
    .command('andersen')
    .description("inclusion-based (Andersen) points-to analysis for C (PPoPP'12 constraint graphs)");
  andersen
    .command('solve')
    .description(
      'solve a points-to problem, optionally verify it against a reference and write the points-to sets',
    )
    .option(
      '--input <prefix|file>',
      'a Hardekopf prefix (finds <prefix>_nodes.txt[.gz], _constraints_after_hcd.txt[.gz], _hcd.txt[.gz], ' +
        '_correct_soln_001.txt[.gz]) or a gpumorph-constraints text/JSON file',
    )
    .option('--nodes <file>', 'Hardekopf nodes file (with --constraints; not with --input)')
    .option('--constraints <file>', 'Hardekopf constraints file (raw or after HCD)')
    .option('--hcd <file>', 'Hardekopf HCD table (with --nodes and --constraints)')
    .option('--verify <file>', 'reference solution (Hardekopf _correct_soln or gpumorph-points-to)')
    .addOption(
      new Option(
        '--constraint-set <set>',
        "with --input <prefix>: which constraints file (after-hcd: the HCD table's offline merges " +
          'applied, the problem the reference solves; raw: as the front end wrote it, larger sets where ' +
          'indirect calls pass arguments through offsets)',
      )
        .choices(['after-hcd', 'raw'])
        .default('after-hcd'),
    )
    .option(
      '--no-hcd',
      'solve without the HCD table (raw constraints only: without it, the variables an after-HCD file ' +
        'merged away get no sets)',
    )
    .option(
      '--offline-hcd',
      'compute hybrid cycle detection from the constraints (offline pass) instead of reading a table ' +
        '(same sets, other speed)',
    )
    .option(
      '--hvn',
      'merge pointer-equivalent variables (hash-based value numbering) before solving (same sets)',
    )
    .addOption(
      new Option(
        '--offline-engine <engine>',
        'where --offline-hcd and --hvn run (webgpu: the same merges and pairs, computed on the GPU)',
      )
        .choices(['cpu', 'webgpu'])
        .default('cpu'),
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'engine to solve on (auto: a hardware adapter, else the CPU engine; see the README)',
      )
        .choices(['auto', 'cpu', 'webgpu'])
        .default('auto'),
    )
    .option(
      '--out <file>',
      'write the points-to sets (gpumorph-points-to 1, see packages/andersen/FORMATS.md)',
    )
    .option('--json', JSON_OPTION_HELP)
    .option('--print', 'print every non-empty points-to set by node name (small programs; not with --json)')
    .action(
      async (
        options: {
          input?: string;
          nodes?: string;
          constraints?: string;
          hcd: boolean | string;
          verify?: string;
          constraintSet: 'raw' | 'after-hcd';
          engine: 'auto' | 'cpu' | 'webgpu';
          out?: string;
          json?: boolean;
          print?: boolean;
          offlineHcd?: boolean;
          hvn?: boolean;
          offlineEngine: 'cpu' | 'webgpu';
        },
        command: Command,
      ) => {
        if (
          options.input === undefined &&
          (options.nodes === undefined || options.constraints === undefined)
        ) {
          command.error('give --input <prefix|file>, or both --nodes and --constraints', {
            exitCode: EXIT_USAGE,
            code: 'gpumorph.missingInput',
          });
        }
        const conflict = andersenSolveConflict(options, command);
        if (conflict) command.error(conflict, { exitCode: EXIT_USAGE, code: 'gpumorph.conflictingOptions' });
        setStatus(
          await runAndersenSolve(
            {
              input: options.input,
              nodes: options.nodes,
              constraints: options.constraints,
              hcd: typeof options.hcd === 'string' ? options.hcd : undefined,
              useHcd: options.hcd !== false,
              verify: options.verify,
              constraintSet: options.constraintSet,
              engine: options.engine,
              out: options.out,
              json: options.json ?? false,
              print: options.print ?? false,
              offlineHcd: options.offlineHcd ?? false,
              hvn: options.hvn ?? false,
              offlineEngine: options.offlineEngine,
            },
            io,
          ),
        );
      },
    );

  andersen
    .command('ll')
    .description('points-to analysis of an LLVM IR module (.ll): call graph, alias checks, points-to sets')
    .argument(
      '<files...>',
      'textual LLVM IR (clang -S -emit-llvm), typed or opaque pointers; several files are linked by symbol',
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'engine to solve on (auto: a hardware adapter, else the CPU engine; see the README)',
      )
        .choices(['auto', 'cpu', 'webgpu'])
        .default('auto'),
    )
    .option('--json', JSON_OPTION_HELP)
    .option(
      '--alias-report',
      'judge every MAYALIAS/NOALIAS/MUSTALIAS/PARTIALALIAS/EXPECTEDFAIL_* call of the module (SVF test-suite rules)',
    )
    .option(
      '--allocator <name...>',
      'functions that return a fresh heap object per call site (beside malloc, calloc, …)',
    )
    .option(
      '--no-refine',
      'answer from the first solve alone: no heap object per allocation-wrapper call site, no vtable bound by the class hierarchy',
    )
    .option(
      '--whole-program-vtables',
      'every class is in the given modules: bound virtual calls by llvm.public.type.test too (clang -fwhole-program-vtables)',
    )
    .option('--print', 'print the points-to set of every pointer value (small modules)')
    .option('--variables', 'print the points-to set of every source variable (debug info: compile with -g)')
    .option(
      '--alias <pair...>',
      "alias queries, each 'A,B' with A and B IR values ('%p in @main', '@g'): may-alias or no-alias and both points-to sets",
    )
    .addOption(
      new Option('--call-graph <format>', 'print only the call graph, indirect calls resolved').choices([
        'dot',
        'json',
      ]),
    )
    .action(
      async (
        files: string[],
        options: {
          engine: 'auto' | 'cpu' | 'webgpu';
          json?: boolean;
          aliasReport?: boolean;
          allocator?: string[];
          wholeProgramVtables?: boolean;
          refine: boolean;
          print?: boolean;
          alias?: string[];
          callGraph?: 'dot' | 'json';
          variables?: boolean;
        },
      ) => {
        setStatus(
          await runAndersenLl(
            {
              files,
              aliases: options.alias,
              variables: options.variables ?? false,
              callGraph: options.callGraph,
              engine: options.engine,
              json: options.json ?? false,
              aliasReport: options.aliasReport ?? false,
              allocators: options.allocator,
              wholeProgramVtables: options.wholeProgramVtables ?? false,
              refine: options.refine,
              print: options.print ?? false,
            },
            io,
          ),
        );
      },
    );

  program
    .command('cfa')
    .description("0CFA of a Scheme program, or of EigenCFA matrices (POPL'11): flow sets and callees")
    .argument('[file.scm]', 'a Scheme program')
    .option('--matrices <dir>', 'a data-folder program: program-params.lst, Fun.mat, Arg1.mat, Arg2.mat')
    .addOption(
      new Option(
        '--engine <engine>',
        'engine to solve on (auto: a hardware adapter, else the CPU engine; see the README)',
      )
        .choices(['auto', 'cpu', 'webgpu'])
        .default('auto'),
    )
    .addOption(
      new Option('--booleans <encoding>', '#t/#f as Church booleans (as the data folder) or basic values')
        .choices(['church', 'basic'])
        .default('church'),
    )
    .option('--json', JSON_OPTION_HELP)
    .action(
      async (
        file: string | undefined,
        options: {
          matrices?: string;
          engine: 'auto' | 'cpu' | 'webgpu';
          booleans: 'church' | 'basic';
          json?: boolean;
        },
        command: Command,
      ) => {
        if ((file === undefined) === (options.matrices === undefined)) {
          command.error('give a Scheme file or --matrices <dir> (one of them)', {
            exitCode: EXIT_USAGE,
            code: 'gpumorph.missingInput',
          });
        }
        setStatus(
          await runCfa(
            {
              file,
              matrices: options.matrices,
              engine: options.engine,
              json: options.json ?? false,
              booleans: options.booleans,
            },
            io,
          ),
        );
      },
    );

  program
    .command('octagon')
    .description(
      'analyze a program of the tiny octagon language: the invariant at each program point and the proved assertions',
    )
    .argument(
      '<file>',
      'program (integer and real variables, assignments, if, while, assert, procedures; see packages/octagon/README.md)',
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'octagon engine (auto: a hardware adapter, else f64; exact: BigInt rationals; f64: floats rounded outward)',
      )
        .choices(['auto', 'exact', 'f64', 'webgpu'])
        .default('auto'),
    )
    .option('--json', JSON_OPTION_HELP)
    .option('--loops-only', 'print the invariants at loop heads and at the end only')
    .action(
      async (
        file: string,
        options: { engine: 'auto' | 'exact' | 'f64' | 'webgpu'; json?: boolean; loopsOnly?: boolean },
      ) => {
        setStatus(
          await runOctagon(
            {
              file,
              engine: options.engine,
              json: options.json ?? false,
              loopsOnly: options.loopsOnly ?? false,
            },
            io,
          ),
        );
      },
    );

  addHelpEpilogues(program, '');
  return program;
}

/**
 * Runs the `gpumorph` command line `argv` (as in `process.argv`: node, script, arguments) and
 * returns its exit status. Throws what the command threw (`CommanderError` for usage errors,
 * `GpumorphError`s, …): pass it to `reportCliError` for the message and the status.
 *
 * @example
 * ```ts
 * import { reportCliError, runCli } from '@gpumorph/cli';
 * try {
 *   process.exitCode = await runCli(['node', 'gpumorph', 'bench', 'allocator', '--quick']);
 * } catch (error) {
 *   process.exitCode = reportCliError(error);
 * }
 * ```
 */
export async function runCli(
  argv: readonly string[] = process.argv,
  io: CliIo = processIo(),
): Promise<number> {
  let status = 0;
  const program = createProgram(io, (code) => {
    status = code;
  });
  await program.parseAsync([...argv], { from: 'node' });
  return status;
}
