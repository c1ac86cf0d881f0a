package dev.dptext.job.base;

import dev.dptext.errors.Catalogued;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.errors.DpTextException;
import java.util.Map;

/**
 * A failure the job reports as one line and an {@link ExitCode}; never carries row content. Raised from the
 * error catalogue ({@link #of}, {@link #from}: {@code dev.dptext.errors.DpTextErrors}), it carries the entry's
 * name and parameters and its exit code is the entry's. There is no inline form: every message is the catalogue's
 * ({@code InlineMessagesTest}).
 */
public final class JobException extends RuntimeException implements Catalogued {
  private static final long serialVersionUID = 1L;

  public final ExitCode exitCode;
  private final String errorClass;
  private final Map<String, String> parameters;

  private JobException(ExitCode exitCode, String message, String errorClass, Map<String, String> parameters,
      Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
    this.errorClass = errorClass;
    this.parameters = parameters;
  }

  /** The catalogue's entry {@code name} with parameters given as name, value, name, value... */
  public static JobException of(String name, Object... parameters) {
    return of(null, name, parameters);
  }

  /** {@link #of(String, Object...)} caused by {@code cause} (kept as the cause; its message is not quoted). */
  public static JobException of(Throwable cause, String name, Object... parameters) {
    Map<String, String> p = DpTextErrors.pairs(parameters);
    return new JobException(exitCode(name), DpTextErrors.render(name, p), name, p, cause);
  }

  /** The library's catalogued error as the job's: same name, parameters and message, the exit code of its category. */
  public static JobException from(DpTextException e) {
    return new JobException(exitCode(e.errorClass()), e.getMessage(), e.errorClass(), e.parameters(), e);
  }

  /**
   * A library's refusal {@code e} as the job's: a catalogued error ({@link DpTextException}) keeps its name and
   * the exit code of its category; another library's (Spark's, Hadoop's: dptext's own are all catalogued) is
   * {@code CONFIGURATION_REFUSED} or {@code INPUT_REFUSED} as this call site's {@code fallback} says, quoting the
   * first line of its message (Spark's go on with the plan, which can hold the query's literals).
   */
  public static JobException wrap(ExitCode fallback, Throwable e) {
    if (e instanceof DpTextException d) {
      return from(d);
    }
    String name = switch (fallback) {
      case USAGE -> "CONFIGURATION_REFUSED";
      case INPUT -> "INPUT_REFUSED";
      default -> throw new IllegalStateException("wrap takes USAGE or INPUT, not " + fallback);
    };
    return of(e, name, "reason", firstLine(e.getMessage()).replaceAll("\\.$", ""), "type",
        e.getClass().getSimpleName());
  }

  /** The exit code of the catalogue's entry {@code name}. */
  public static ExitCode exitCode(String name) {
    return ExitCode.valueOf(DpTextErrors.get(name).exit().name());
  }

  /** The catalogue entry's name, or null for an inline message. */
  @Override
  public String errorClass() {
    return errorClass;
  }

  @Override
  public Map<String, String> parameters() {
    return parameters;
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
        : new JobException(exitCode, getMessage() + serverMark(exitCode), errorClass, parameters, getCause());
  }

  /** The mark {@link #SERVER_MARK} reads back (a machine's words, not a message: the client strips it). */
  private static String serverMark(ExitCode code) {
    return " [dptext exit " + code.code + "]";
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
    // The name survives the round trip in the text ([NAME] ...), and the parameters are read back from it.
    String name = DpTextErrors.nameOf(text).orElse(null);
    return java.util.Optional.of(new JobException(ExitCode.of(Integer.parseInt(m.group(1))), text.strip(), name,
        name == null ? Map.of() : DpTextErrors.parametersOf(name, text), null));
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
