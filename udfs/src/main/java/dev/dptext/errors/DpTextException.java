package dev.dptext.errors;

import java.util.Map;

/**
 * An error of the catalogue ({@link DpTextErrors}) raised by the library: its message is the entry's one line
 * ({@code [NAME] message fix}), and it carries the name, the parameters and the exit category. An
 * {@link IllegalArgumentException}, so that every caller that catches a refused argument catches it too; the
 * job maps it to the exit code of its category.
 */
public class DpTextException extends IllegalArgumentException implements Catalogued {
  private static final long serialVersionUID = 1L;

  private final String errorClass;
  private final Map<String, String> parameters;
  private final Exit exit;

  /**
   * Entry {@code name} with these parameters; use {@link DpTextErrors#error}, or subclass where callers must tell
   * this refusal from others by type.
   */
  protected DpTextException(String name, Map<String, String> parameters, Throwable cause) {
    super(DpTextErrors.render(name, parameters), cause);
    this.errorClass = name;
    this.parameters = parameters;
    this.exit = DpTextErrors.get(name).exit();
  }

  @Override
  public String errorClass() {
    return errorClass;
  }

  @Override
  public Map<String, String> parameters() {
    return parameters;
  }

  /** The entry's exit category (the job's exit code). */
  public Exit exit() {
    return exit;
  }
}
