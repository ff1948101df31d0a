// The shell signer of examples/signing/shell/ (see suite.ts for what it must do).
import { languageSuite } from './suite.ts';

await languageSuite('shell');
