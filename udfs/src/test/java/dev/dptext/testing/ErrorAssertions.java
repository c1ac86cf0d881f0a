package dev.dptext.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dptext.errors.Catalogued;
import dev.dptext.errors.DpTextErrors;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Asserts errors by their catalogue name and parameters, not their prose (Delta's {@code checkError}): a test
 * that holds the name keeps passing when the catalogue's wording changes, and fails when the error changes.
 */
public final class ErrorAssertions {
  private ErrorAssertions() {}

  /**
   * {@code thrown}, or the first of its causes raised from the catalogue, is entry {@code name} with exactly
   * {@code parameters} (values compared as rendered: {@code Map.of("value", 3)} matches "3").
   */
  public static void assertError(Throwable thrown, String name, Map<String, ?> parameters) {
    Catalogued c = catalogued(thrown).orElseGet(() -> fail("not a catalogued error: " + thrown, thrown));
    assertEquals(name, c.errorClass(), String.valueOf(thrown));
    Map<String, String> expected = new LinkedHashMap<>();
    parameters.forEach((k, v) -> expected.put(k, String.valueOf(v)));
    assertEquals(expected, c.parameters(), "parameters of " + name);
  }

  /** {@code thrown}, or the first of its causes raised from the catalogue, is entry {@code name}. */
  public static void assertError(Throwable thrown, String name) {
    Catalogued c = catalogued(thrown).orElseGet(() -> fail("not a catalogued error: " + thrown, thrown));
    assertEquals(name, c.errorClass(), String.valueOf(thrown));
  }

  /** A text (a job's stderr, a message that crossed a process) quotes entry {@code name}: {@code [NAME] ...}. */
  public static void assertErrorText(String text, String name) {
    assertTrue(DpTextErrors.all().containsKey(name), name + " is not in the catalogue");
    assertTrue(String.valueOf(text).contains("[" + name + "] "), "expected [" + name + "] in: " + text);
  }

  private static Optional<Catalogued> catalogued(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof Catalogued k) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }
}
