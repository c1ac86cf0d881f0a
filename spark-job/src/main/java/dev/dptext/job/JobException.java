package dev.dptext.job;

/** A failure the job reports as one line and an {@link ExitCode}; never carries row content. */
final class JobException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final ExitCode exitCode;

  JobException(ExitCode exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  /**
   * The first line of a library's message, for quoting it in ours: Spark's analysis errors go on with
   * the plan, which can hold literals from the query.
   */
  static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /**
   * Whether a task failed with {@code type}: a task's failure reaches the driver as a SparkException
   * that names the error in its message, and the error object itself is not always attached as a cause,
   * so each cause's class and message are checked.
   */
  static boolean taskFailedWith(Throwable e, Class<? extends Throwable> type, String message) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (type.isInstance(c) || String.valueOf(c.getMessage()).contains(message)) {
        return true;
      }
    }
    return false;
  }
}
