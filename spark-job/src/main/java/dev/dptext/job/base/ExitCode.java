package dev.dptext.job.base;

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
 *   <li>5 — conflict: another writer committed to the output at the same time; nothing of this run
 *       was committed. Retry the run (a retry with the same transaction, or one that finds the run's
 *       commit already there, ends with 0 and "Nothing to do").
 *   <li>6 — privacy budget: the run would take rows past {@code --epsilon-budget} (the privacy ledger);
 *       nothing was written. Retrying will not help until the budget or the rows change.
 * </ul>
 */
public enum ExitCode {
  OK(0, "success"),
  FAILURE(1, "unexpected failure: retrying may help"),
  USAGE(2, "usage or configuration error: fix the configuration; retrying will not help"),
  INPUT(3, "input error: fix the input; retrying will not help"),
  INTEGRITY(4, "integrity failure, rows out differ from rows in: do not use the output"),
  CONFLICT(5, "conflict with a concurrent writer, nothing of this run committed: retry"),
  BUDGET(6, "privacy budget exceeded, nothing written: raise the budget or release other rows");

  public final int code;
  public final String meaning;

  ExitCode(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  /** The exit code with this number; codes outside the list are unexpected failures. */
  public static ExitCode of(int code) {
    for (ExitCode c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    return FAILURE;
  }
}
