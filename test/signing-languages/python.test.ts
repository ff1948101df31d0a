// The python signer of examples/signing/python/ (see suite.ts for what it must do).
import { languageSuite } from './suite.ts';

await languageSuite('python');
