package dev.dptext.job;

/**
 * Process exit codes a scheduler can act on.
 *
 * <ul>
 *   <li>0 — success.
 *   <li>1 — unexpected failure (a bug or an infrastructure error): retrying may help.
 *   <li>2 — usage or configuration error (unknown option or key, bad value, missing key): fix the
 *       configuration; retrying will not help.
 *   <li>3 — input error (path missing or unreadable, column missing or of the wrong type): fix the
 *       input; retrying will not help.
 *   <li>4 — integrity failure: rows out ≠ rows in. The output must not be used.
 * </ul>
 */
public enum ExitCode {
  OK(0),
  FAILURE(1),
  USAGE(2),
  INPUT(3),
  INTEGRITY(4);

  final int code;

  ExitCode(int code) {
    this.code = code;
  }
}
