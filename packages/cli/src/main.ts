#!/usr/bin/env node
/**
 * The `gpumorph` executable: runs the command line and turns errors into a one-line message and an
 * exit status (1 for failures, 2 for usage errors); stacks only with `GPUMORPH_DEBUG=1`.
 * @module
 */
import { runCli } from './cli';
import { reportCliError } from './errors';

async function main(): Promise<void> {
  try {
    process.exitCode = await runCli(process.argv);
  } catch (error) {
    process.exitCode = reportCliError(error);
  }
}

void main();
