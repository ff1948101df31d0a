// Command-line parsing shared by every command: node:util parseArgs in strict mode, with its
// errors turned into UsageError so that main.ts answers every usage mistake the same way
// (one line on stderr, exit code 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Something went wrong while doing the work (network, receiver, file): one line, exit code 1. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed<T extends Options> {
  values: {
    [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : T[K]['multiple'] extends true ? string[] : string;
  };
  positionals: string[];
}

/** Parses `args` against `options` (plus `--help`); unknown options and missing values are UsageErrors. */
export function parse<T extends Options>(args: string[], options: T, command: string): Parsed<T> & { help: boolean } {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    const { help, ...rest } = values as Record<string, unknown>;
    return { values: rest as Parsed<T>['values'], positionals, help: help === true };
  } catch (err) {
    // parseArgs' messages are clear but long; keep the first sentence and name the command.
    const message = err instanceof Error ? err.message.split('. ')[0]!.replace(/\.$/, '') : String(err);
    throw new UsageError(`${command}: ${message} (see domain-sales ${command} --help)`);
  }
}
