// The go signer of examples/signing/go/ (see suite.ts for what it must do).
import { languageSuite } from './suite.ts';

await languageSuite('go');
