/**
 * The longest delay a Node timer honours, in milliseconds (2^31 - 1, about 24.8 days). `setTimeout` fires a
 * longer one after 1 ms, so every millisecond config key that becomes a timer is bounded by it.
 */
export const MAX_TIMER_MS = 2_147_483_647
