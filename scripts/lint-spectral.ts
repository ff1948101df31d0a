// Spectral lint of the three bundled documents (generated/*.openapi.json) with
// spectral.ruleset.mjs: spectral:oas and the reviewed OWASP API Security ruleset. Part of
// `npm run lint:spec`; the contract allows no finding of any severity, so any fails.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { APIS, ROOT, type ApiName } from './contract.ts';

const { Document, Ruleset, Spectral } = spectralCore;
const RULESET = join(ROOT, 'spectral.ruleset.mjs');
const SEVERITY = ['error', 'warn', 'info', 'hint'];

export interface SpectralFinding {
  api: ApiName;
  code: string;
  severity: string;
  message: string;
  path: string;
}

/**
 * The findings on the bundled documents; `texts` replaces a document's text (tests lint altered
 * copies under the real file names, so the ruleset's overrides apply as they do to the real ones).
 */
export async function lintWithSpectral(
  apis: readonly ApiName[] = APIS,
  texts: Partial<Record<ApiName, string>> = {},
): Promise<SpectralFinding[]> {
  const definition = (
    (await import(pathToFileURL(RULESET).href)) as { default: ConstructorParameters<typeof Ruleset>[0] }
  ).default;
  const spectral = new Spectral();
  // The ruleset's source anchors its `overrides` file patterns at the repository root.
  spectral.setRuleset(new Ruleset(definition, { source: RULESET }));
  const findings: SpectralFinding[] = [];
  for (const api of apis) {
    const file = join(ROOT, 'generated', `${api}.openapi.json`);
    const document = new Document(texts[api] ?? (await readFile(file, 'utf8')), spectralParsers.Json, file);
    for (const r of await spectral.run(document)) {
      findings.push({
        api,
        code: String(r.code),
        severity: SEVERITY[r.severity] ?? String(r.severity),
        message: r.message,
        path: r.path.join('.'),
      });
    }
  }
  return findings;
}

/** Prints the findings per document; the number of findings. */
export async function reportSpectral(): Promise<number> {
  const findings = await lintWithSpectral();
  for (const api of APIS) {
    const mine = findings.filter((f) => f.api === api);
    console.log(`spectral ${api}: ${mine.length} findings`);
    for (const f of mine) console.log(`  ${f.severity} ${f.code}: ${f.message}\n    at ${f.path}`);
  }
  return findings.length;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit((await reportSpectral()) === 0 ? 0 : 1);
