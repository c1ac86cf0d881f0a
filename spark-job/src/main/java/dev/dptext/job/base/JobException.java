package dev.dptext.job.base;

/** A failure the job reports as one line and an {@link ExitCode}; never carries row content. */
public final class JobException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public final ExitCode exitCode;

  public JobException(ExitCode exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  /** Marks a message thrown on a Spark Connect server, where the exception's class does not reach the client. */
  private static final java.util.regex.Pattern SERVER_MARK = java.util.regex.Pattern.compile(" \\[dptext exit (\\d)\\]");

  /**
   * This exception with its exit code written into its message: code that runs on a Spark Connect
   * server (a stream's micro-batch function) throws this, and the client finds the code again with
   * {@link #fromServer}.
   */
  public JobException onServer() {
    return SERVER_MARK.matcher(String.valueOf(getMessage())).find() ? this
        : new JobException(exitCode, getMessage() + " [dptext exit " + exitCode.code + "]");
  }

  /**
   * The {@link JobException} that code on a Spark Connect server threw ({@link #onServer}), from the error
   * the client received (whose message quotes it, after the server's own words); empty for any other error.
   */
  public static java.util.Optional<JobException> fromServer(Throwable t) {
    String message = String.valueOf(t.getMessage());
    java.util.regex.Matcher m = SERVER_MARK.matcher(message);
    if (!m.find()) {
      return java.util.Optional.empty();
    }
    String text = message.substring(0, m.start());
    int quoted = text.lastIndexOf(JobException.class.getName() + ": ");
    text = quoted >= 0 ? text.substring(quoted + JobException.class.getName().length() + 2) : text;
    return java.util.Optional.of(new JobException(ExitCode.of(Integer.parseInt(m.group(1))), text.strip()));
  }

  /**
   * The first line of a library's message, for quoting it in ours: Spark's analysis errors go on with
   * the plan, which can hold literals from the query.
   */
  public static String firstLine(String s) {
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
  public static boolean taskFailedWith(Throwable e, Class<? extends Throwable> type, String message) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (type.isInstance(c) || String.valueOf(c.getMessage()).contains(message)) {
        return true;
      }
    }
    return false;
  }
}
