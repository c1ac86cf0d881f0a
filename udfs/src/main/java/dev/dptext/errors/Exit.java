package dev.dptext.errors;

/**
 * What a catalogued error asks of the user, as the job's exit code ({@code dev.dptext.job.base.ExitCode},
 * whose constants of the same names have the same numbers: a test of the job checks it).
 */
public enum Exit {
  /** An unexpected failure (a bug or an infrastructure error): retrying may help. */
  FAILURE(1),
  /** A usage or configuration error: fix the configuration; retrying will not help. */
  USAGE(2),
  /** An input error: fix the input; retrying will not help. */
  INPUT(3),
  /** Rows out differ from rows in: do not use the output. */
  INTEGRITY(4),
  /** A concurrent writer committed first; nothing of this run was committed: retry. */
  CONFLICT(5),
  /** The privacy budget would be exceeded; nothing was written. */
  BUDGET(6);

  /** The job's exit code for this category. */
  public final int code;

  Exit(int code) {
    this.code = code;
  }
}
