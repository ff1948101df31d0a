// The hosted-checkout request the checkout and referral tests share.
import { orderBody, type Listing } from './http.ts';

export const sessionBody = (d: Listing, extra: Record<string, unknown> = {}) => ({
  ...orderBody(d),
  return_url: 'https://partner.example.net/done?step=3',
  cancel_url: 'https://partner.example.net/cart',
  ...extra,
});
