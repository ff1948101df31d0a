// The contract package (generated/) ships the signing test vectors, whose source of truth is
// spec/vectors/signing.json: copied in (git-ignored) by `npm run build` and before `npm pack`.
import { copyFileSync, mkdirSync } from 'node:fs';

const from = new URL('../spec/vectors/signing.json', import.meta.url);
const to = new URL('../generated/vectors/signing.json', import.meta.url);
mkdirSync(new URL('.', to), { recursive: true });
copyFileSync(from, to);
