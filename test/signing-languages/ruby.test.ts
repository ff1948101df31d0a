// The ruby signer of examples/signing/ruby/ (see suite.ts for what it must do).
import { languageSuite } from './suite.ts';

await languageSuite('ruby');
