// How the operator ran the kit, so the reports' rerun lines are commands that work where they
// ran it: `npm run conformance --` in this repository, `npx @domain-sales/conformance` under npx,
// `domain-sales-conformance` when the bin was found on PATH, otherwise the script's path (with
// `node` or `npx tsx`). Read from process.argv and the variables npm sets for the scripts it runs
// (npm_command, npm_lifecycle_event); bin.mjs passes the path it was invoked by in
// CONFORMANCE_INVOKED_AS when it hands over to tsx.
import { basename, delimiter, dirname, isAbsolute, relative, resolve } from 'node:path';

export const BIN = 'domain-sales-conformance';
export const PACKAGE = '@domain-sales/conformance';

export function invocation(
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  const script = env.CONFORMANCE_INVOKED_AS || argv[1] || BIN;
  const name = basename(script);
  const kit = name === BIN || name === 'bin.mjs' || name === 'cli.js';
  if (env.npm_command?.startsWith('run') && env.npm_lifecycle_event) {
    // `npm run X -- …` reruns only when the script X is the kit with no options of its own;
    // otherwise its options would be sent twice: name the kit through npx instead.
    if (!scriptHasOptions(env.npm_lifecycle_script ?? '')) return `npm run ${env.npm_lifecycle_event} --`;
    if (kit) return `npx ${PACKAGE}`;
  }
  // Under npx: the package (found installed or fetched); a script it ran (npx tsx cli.ts) by its path below.
  if (env.npm_command === 'exec' && kit) return `npx ${PACKAGE}`;
  const path = isAbsolute(script) ? script : resolve(cwd, script);
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => resolve(cwd, dir) === dirname(path));
  if (name === BIN && onPath) return BIN;
  const shown = relative(cwd, path) || name;
  const local = shown.startsWith('.') || isAbsolute(shown) ? shown : `./${shown}`;
  if (name === BIN) return local;
  return /\.[cm]?ts$/.test(name) ? `npx tsx ${shown}` : `node ${shown}`;
}

/** Runtime options that take a value as the next word (`node --import tsx cli.ts`). */
const VALUED = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--tsconfig']);

/**
 * Whether an npm script passes options of its own to the kit: any option after the program's
 * path. The launcher before it (`exec`, `node` or `tsx` and their options) is not the kit's.
 */
function scriptHasOptions(script: string): boolean {
  const words = script.trim().split(/\s+/);
  let i = words[0] === 'exec' ? 1 : 0;
  if (words[i] === 'node' || words[i] === 'tsx')
    for (i++; i < words.length && words[i]!.startsWith('-'); i++) if (VALUED.has(words[i]!)) i++;
  return words.slice(i + 1).some((w) => w.startsWith('-'));
}

/** A command line with each argument quoted for a POSIX shell when it needs it. */
export function shellLine(words: readonly string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
