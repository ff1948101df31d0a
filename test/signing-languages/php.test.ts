// The php signer of examples/signing/php/ (see suite.ts for what it must do).
import { languageSuite } from './suite.ts';

await languageSuite('php');
