package dev.dptext.job.base;

import dev.dptext.errors.Catalogued;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a command ended, as a scheduler reads it: the exit code and, for a refusal from the error catalogue, its
 * name and parameters (docs/errors.md). The same outcome reaches every surface that reports an end: the process's
 * exit code, {@code DatabricksTask.Failure}, and the run's JSON summary ({@link #toMap}).
 *
 * @param exit the exit code
 * @param errorClass the catalogue entry's name, or null (success, or a failure the catalogue does not name)
 * @param parameters the entry's parameters (names, paths, numbers, settings: never row text); empty without a name
 */
public record JobOutcome(ExitCode exit, String errorClass, Map<String, String> parameters) {
  public static final JobOutcome SUCCEEDED = new JobOutcome(ExitCode.OK, null, Map.of());

  public JobOutcome {
    parameters = Map.copyOf(parameters);
  }

  /** The outcome of a command that threw {@code e}: its catalogued name and category, else an unexpected failure. */
  public static JobOutcome of(Throwable e) {
    if (e instanceof JobException je) {
      return new JobOutcome(je.exitCode, je.errorClass(), je.parameters());
    }
    if (e instanceof Catalogued c) { // the library's refusal (DpTextException): its category's code
      return new JobOutcome(JobException.exitCode(c.errorClass()), c.errorClass(), c.parameters());
    }
    return new JobOutcome(ExitCode.FAILURE, null, Map.of());
  }

  /** The outcome of a command that returned {@code code} without throwing. */
  public static JobOutcome ofCode(int code) {
    return code == ExitCode.OK.code ? SUCCEEDED : new JobOutcome(ExitCode.of(code), null, Map.of());
  }

  public boolean succeeded() {
    return exit == ExitCode.OK;
  }

  /**
   * The outcome's fields in a run's JSON summary: {@code outcome} ({@code succeeded} or {@code failed}),
   * {@code exitCode}, and for a named failure {@code error} and {@code errorParameters}.
   */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("outcome", succeeded() ? "succeeded" : "failed");
    m.put("exitCode", exit.code);
    if (errorClass != null) {
      m.put("error", errorClass);
      m.put("errorParameters", new java.util.TreeMap<>(parameters));
    }
    return m;
  }
}
