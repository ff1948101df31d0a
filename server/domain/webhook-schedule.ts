/**
 * The redelivery schedule of `x-webhook-delivery`: the wait after each failed attempt, then
 * failure. Attempt 1 is the first delivery, so ten waits allow eleven attempts.
 */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [10, 30, 120, 600, 1800, 3600, 10_800, 21_600, 43_200, 86_400];
export const MAX_DELIVERY_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;
/** A receiver silent for longer than this has failed the attempt. */
export const DELIVERY_TIMEOUT_SECONDS = 5;

/**
 * The wait before the next attempt, in ms, or undefined when `attemptJustFailed` was the last
 * and the delivery is to be marked failed. `scale` shrinks the whole schedule for tests (0.001
 * turns the 10 s first wait into 10 ms) without changing its shape.
 */
export function nextAttemptDelayMs(attemptJustFailed: number, scale = 1): number | undefined {
  if (!Number.isSafeInteger(attemptJustFailed) || attemptJustFailed < 1) {
    throw new RangeError(`attemptJustFailed must be an attempt number from 1, got ${attemptJustFailed}`);
  }
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`scale must be a positive number, got ${scale}`);
  const seconds = RETRY_SCHEDULE_SECONDS[attemptJustFailed - 1];
  return seconds === undefined ? undefined : Math.round(seconds * 1000 * scale);
}

/** A 2xx answer within the timeout is the only success. */
export function isDeliverySuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}
