// postinstall: the devDependency `node` (22.x) brings a Node binary for the MCP conformance
// suite and Inspector 2, which need Node 22 (test/mcp/node22.ts runs it from
// node_modules/node/bin/node). npm would also link it as node_modules/.bin/node, and npm puts
// that folder first on the PATH of every script, so `npm test` and every tool would silently run
// on Node 22. The project runs on Node 20: the link is removed, the binary stays.
import { lstatSync, rmSync } from 'node:fs';

const link = new URL('../node_modules/.bin/node', import.meta.url);
try {
  lstatSync(link);
  rmSync(link, { force: true });
  console.log(
    'postinstall: removed node_modules/.bin/node (the project runs on the Node that runs npm; Node 22 stays in node_modules/node for the MCP interop tests)',
  );
} catch {
  // No link: nothing to do.
}
