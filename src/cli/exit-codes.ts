/**
 * The CLI's exit codes: 1 for anything the user can fix on the command line (a bad option, a
 * missing key, an unreadable file) and for an experiment under its pass rate (or regressed), 2
 * only when the service refused a request, 3 when it could not be reached at all, 4 when an
 * experiment's judge or scorer failed (its verdicts errored: the run says nothing either way).
 */
export const EXIT = {
  ok: 0,
  usage: 1,
  /** `evaltrace eval`: a pass rate under `--min-pass-rate`, or a regression with `--fail-on-regression`. */
  belowThreshold: 1,
  /** `evaltrace doctor`: a check found something to fix. */
  unhealthy: 1,
  rejected: 2,
  /** Nothing answered at the service's address (nothing listens there, no such host, no answer in time). */
  unreachable: 3,
  /** `evaltrace eval`: a metric verdict errored (the judge or a scorer failed), without `--allow-errored`. */
  errored: 4,
} as const;

/** One of {@link EXIT}'s values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
