import { it } from 'vitest';
import { startHarness } from '../harness.ts';
import { signedRequest } from './http.ts';
it('probe', async () => {
  for (const dispatch of [true, false]) {
  const h = await startHarness({ inventorySize: 500, databaseUrl: process.env.DATABASE_URL, dispatch });
  const c = await h.mint({});
  for (let i = 0; i < 3; i++) {
    let t = Date.now();
    await signedRequest(h, c, { path: '/api/partner/v1/events' });
    const a = Date.now() - t; t = Date.now();
    await signedRequest(h, c, { path: '/api/partner/v1/pricing', query: 'domain=bestcoffeebeans.com' });
    console.log(dispatch, a, Date.now() - t);
  }
  await h.close();
  }
});
