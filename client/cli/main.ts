#!/usr/bin/env node
// `domain-sales`: the partner CLI. The one composition root: it wires the process (argv, env,
// stdin, SIGINT, exit code) to the commands, and turns every error into one line on stderr
// (exit 2 for a usage mistake, 1 for anything else).
import { type Io } from './io.ts';
import { LISTEN_HELP, listenCommand } from './listen.ts';
import { REQUEST_HELP, requestCommand } from './request.ts';
import { CommandError, UsageError } from './usage.ts';
import { VERIFY_HELP, verifyWebhookCommand } from './verify-webhook.ts';

const COMMANDS: Record<string, { run: (args: string[], io: Io) => Promise<number>; help: string }> = {
  request: { run: requestCommand, help: REQUEST_HELP },
  listen: { run: listenCommand, help: LISTEN_HELP },
  'verify-webhook': { run: verifyWebhookCommand, help: VERIFY_HELP },
};

const HELP = `Usage: domain-sales <command> [options]

The Domain Sales partner CLI.

Commands:
  request METHOD PATH        sign and send one partner API request (or print it as curl, or --explain it)
  listen --forward-to URL    forward the event history to a local webhook receiver
  verify-webhook --secret S  check a webhook signature (body on stdin)

Run domain-sales <command> --help for each command's options.
Environment: SERVICE_KEY_ID, SERVICE_SECRET, SERVICE_BASE_URL, WEBHOOK_SECRET.`;

async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) process.stderr.write('Reading stdin: paste, then Ctrl-D (better: pipe the exact bytes).\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  // The first Ctrl-C (or SIGTERM: a supervisor's or container runtime's stop) asks the command to
  // stop cleanly; a second one ends the process at once.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      controller.abort();
      process.once(signal, () => process.exit(130));
    });
  const io: Io = {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    env: process.env,
    readStdin,
    signal: controller.signal,
  };
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? args[0] : undefined;
    // Without a command it is a usage error: the help goes to stderr and the exit code is 2.
    (name === undefined ? io.err : io.out)(`${topic && COMMANDS[topic] ? COMMANDS[topic].help : HELP}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command)
    throw new UsageError(
      `unknown command ${JSON.stringify(name)} (commands: ${Object.keys(COMMANDS).join(', ')}; see domain-sales --help)`,
    );
  return command.run(args, io);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const usage = err instanceof UsageError;
    const message =
      usage || err instanceof CommandError ? err.message : err instanceof Error ? err.message : String(err);
    process.stderr.write(`domain-sales: ${message.split('\n')[0]}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
