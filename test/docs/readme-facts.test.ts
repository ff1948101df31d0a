// The repository README against the code and the documents it describes: facts a reader acts on
// that drifted before (issue 35): every server event line is listed, the MCP revisions are the
// ones the public document serves (the server reads them from there), and one licence is named
// everywhere.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documents, obj, readRepoFile } from './support.ts';

const README = readRepoFile('README.md');

function sourceFiles(dir: string): string[] {
  const root = new URL('../../', import.meta.url).pathname;
  const out: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(join(root, at))) {
      if (name === 'node_modules' || name === 'dist') continue;
      const path = join(at, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) out.push(path);
    }
  };
  walk(dir);
  return out;
}

describe('the README', () => {
  it("lists every server event the code logs (each `event: '…'` of server/)", () => {
    const events = new Set<string>();
    for (const file of sourceFiles('server'))
      for (const m of readRepoFile(file).matchAll(/\bevent: '([a-z_]+)'/g)) events.add(m[1]!);
    // embedded.ts logs through a helper: failed('maintenance_failed', …).
    for (const m of readRepoFile('server/embedded.ts').matchAll(/failed\('([a-z_]+)'/g)) events.add(m[1]!);
    expect(events.size).toBeGreaterThan(10);
    const section = /Server events are\s+lines of their own with an `event` field:([\s\S]*?)\n\n/.exec(README)?.[1];
    expect(section, 'the README paragraph listing the server events').toBeDefined();
    const missing = [...events].filter((e) => !section!.includes(`\`${e}\``));
    expect(missing, 'events the README does not list').toEqual([]);
  });

  it('names the MCP protocol revisions exactly as POST /mcp serves them, in one place', () => {
    const mcp = obj(obj(obj(documents.public.paths)['/mcp']).post);
    const served = mcp['x-mcp-protocol-versions'] as string[];
    const mentions = [...README.matchAll(/protocol revisions ([^;)]+)/g)].map((m) =>
      [...m[1]!.matchAll(/\d{4}-\d{2}-\d{2}/g)].map((d) => d[0]),
    );
    expect(mentions, 'one paragraph names the revisions').toHaveLength(1);
    expect(mentions[0]).toEqual(served);
  });

  it('names one licence, MIT, in every package, the documents and a LICENSE file', () => {
    const license = readFileSync(new URL('../../LICENSE', import.meta.url), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} Domain Sales API authors\n/);
    for (const folder of ['.', 'generated', 'client', 'conformance', 'server']) {
      const manifest = JSON.parse(readRepoFile(`${folder}/package.json`)) as { license?: string; files?: string[] };
      expect(manifest.license, `${folder}/package.json`).toBe('MIT');
    }
    for (const api of ['public', 'partner', 'admin'] as const)
      expect(obj(obj(documents[api].info).license), api).toMatchObject({ name: 'MIT', identifier: 'MIT' });
    expect(README).toMatch(/## Licence\n\nMIT/);
    for (const folder of ['generated', 'client', 'conformance', 'server'])
      expect(readRepoFile(`${folder}/README.md`), `${folder}/README.md`).toMatch(/## Licence\n\nMIT/);
  });
});
