// Shared helpers for the scripts that turn spec/ into generated/: which APIs exist,
// how to bundle one with the Redocly CLI, and where its outputs live.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);

export const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
export const APIS = ['partner', 'public', 'admin'] as const;
export type ApiName = (typeof APIS)[number];

export const bundlePath = (api: ApiName) => join(ROOT, 'generated', `${api}.openapi.json`);
export const typesPath = (api: ApiName) => join(ROOT, 'generated', `${api}.d.ts`);

const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly');

/** Bundles one API (external $refs pulled into components) and returns the parsed document. */
export async function bundle(api: ApiName): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), `bundle-${api}-`));
  const out = join(dir, `${api}.json`);
  try {
    // Bundled by root path: with an API name the CLI ignores -o and writes the configured output.
    await run(REDOCLY, ['bundle', `spec/${api}/openapi.yaml`, '--ext', 'json', '-o', out], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`redocly bundle ${api} failed:\n${e.stderr ?? ''}${e.stdout ?? ''}${e.message}`, { cause: err });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The stable text form of a bundled document. */
export const serialise = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`;
