// Every check family, in the order they run (the schema family last).
import type { Family } from '../context.ts';
import { canonicalQueryFamily, clockSkewFamily, nonceReplayFamily } from './protocol.ts';

export const ALL_FAMILIES: Family[] = [canonicalQueryFamily, clockSkewFamily, nonceReplayFamily];
