// The java signer of examples/signing/java/ (see suite.ts for what it must do).
import { languageSuite } from './suite.ts';

await languageSuite('java');
