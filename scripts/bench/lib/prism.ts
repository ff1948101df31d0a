// Prism's static mock of the partner document, quiet (`-v error`), as the sandbox a partner could
// run instead of the reference server. scripts/mock.ts's launcher waits for Prism's "listening"
// line, which `-v error` suppresses, so this one polls the port instead.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, mockDocument } from '../../mock.ts';
import { track } from './children.ts';
import { ROOT, type Child } from './processes.ts';

export async function startQuietPrism(timeoutMs = 60_000): Promise<Child> {
  const port = await freePort();
  const child = track(
    spawn(
      join(ROOT, 'node_modules', '.bin', 'prism'),
      ['mock', mockDocument('partner', false), '-v', 'error', '--port', String(port), '--host', '127.0.0.1'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const signal = async (name: NodeJS.Signals) => {
    if (!ended()) child.kill(name);
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (ended()) throw new Error(`prism exited before it listened:\n${output.slice(-2000)}`);
    try {
      await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (Date.now() > deadline) {
        await signal('SIGKILL');
        throw new Error(`prism did not listen within ${timeoutMs} ms:\n${output.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { url, child, output: () => output, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}
