/**
 * The crash-loss bound as tests measure it (docs/OPERATIONS.md "What a crash can lose"): a kill -9
 * loses at most the beacons acknowledged within one MAX_UNSECURED_MS window. A client knows an
 * acknowledgement only lies between its request's send and answer, so the bound a test checks is
 * the most acknowledgements that can lie within any one window.
 */

/** An acknowledged beacon: its page view, when it was sent and when its 204 arrived (ms since the epoch). */
export interface Ack {
  pv: string;
  sent: number;
  answered: number;
}

/**
 * The most acknowledgements the server can have given within one window of `windowMs`: the most
 * acks whose [sent, answered] interval meets some window [a, a + windowMs]. The best `a` is an
 * answered time, or a sent time minus the window. O(n²): fine for the few thousand of a test.
 */
export function mostAcksInWindow(acks: Ack[], windowMs: number): number {
  let most = 0;
  for (const a of [...acks.map((x) => x.answered), ...acks.map((x) => x.sent - windowMs)]) {
    let n = 0;
    for (const x of acks) if (x.sent <= a + windowMs && x.answered >= a) n += 1;
    most = Math.max(most, n);
  }
  return most;
}
