package dev.dptext.config;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.errors.DpTextException;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A condition a setting's value must meet, with the words that describe it ({@code "in (0, 1]"}).
 * Every check in dptext fails the same way, through {@link #require}: the message names the setting,
 * the value, what is allowed and the fix.
 *
 * @param <T> the value's type
 */
public final class Check<T> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A serializable predicate (checks travel with ML stages and broadcast specs). */
  public interface Test<T> extends Serializable {
    boolean ok(T value);
  }

  private final Test<T> test;
  private final String expected;
  private final LinkedHashMap<String, Object> rule;

  private Check(Test<T> test, String expected, LinkedHashMap<String, Object> rule) {
    this.test = test;
    this.expected = expected;
    this.rule = rule;
  }

  /** A check only Java can run (its {@link #rule()} is empty: other languages leave it to the JVM). */
  public static <T> Check<T> of(Test<T> test, String expected) {
    return new Check<>(test, expected, null);
  }

  /**
   * A check that other languages can run too: {@code rule} states {@code test} as data (keys {@code min},
   * {@code minOpen}, {@code max}, {@code finite}, {@code each}, {@code nonEmpty}, {@code nonBlank},
   * {@code pattern}), exported by the registry (the Python package validates with it; a test compares
   * its verdicts and messages with this class's).
   */
  private static <T> Check<T> of(Test<T> test, String expected, Object... rule) {
    LinkedHashMap<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < rule.length; i += 2) {
      m.put((String) rule[i], rule[i + 1]);
    }
    return new Check<>(test, expected, m);
  }

  /** Anything (a check that never fails). */
  public static <T> Check<T> any() {
    return of(v -> true, ANY, new Object[0]);
  }

  /** A string matching {@code regex} whole. */
  public static Check<String> matching(String regex, String expected) {
    return of(v -> v.matches(regex), expected, "pattern", regex);
  }

  /** What {@link #any()} expects; a setting shows its type's description instead. */
  static final String ANY = "any value";

  public static Check<Double> positiveFinite() {
    return of(v -> v > 0 && !Double.isInfinite(v), "a positive finite number", "min", 0, "minOpen", true,
        "finite", true);
  }

  /** A finite number ≥ 0. */
  public static Check<Double> nonNegativeFinite() {
    return of(v -> v >= 0 && !Double.isInfinite(v), "a finite number ≥ 0", "min", 0, "finite", true);
  }

  /** (0, 1). */
  public static Check<Double> openUnitInterval() {
    return of(v -> v > 0 && v < 1, "in (0, 1)", "min", 0, "minOpen", true, "max", 1, "maxOpen", true);
  }

  /** [0, 1]. */
  public static Check<Double> unitInterval() {
    return of(v -> v >= 0 && v <= 1, "in [0, 1]", "min", 0, "max", 1);
  }

  /** (0, 1]. */
  public static Check<Double> unitIntervalExcludingZero() {
    return of(v -> v > 0 && v <= 1, "in (0, 1]", "min", 0, "minOpen", true, "max", 1);
  }

  public static Check<Integer> between(int low, int high) {
    return of(v -> v >= low && v <= high, "in [" + low + ", " + high + "]", "min", low, "max", high);
  }

  public static Check<Integer> atLeast(int low) {
    return of(v -> v >= low, "≥ " + low, "min", low);
  }

  public static Check<String> nonBlank() {
    return of(v -> !v.isBlank(), "a non-empty string", "nonBlank", true);
  }

  /** One or more finite numbers ≥ 0. */
  public static Check<List<Double>> nonNegativeList() {
    return of(v -> !v.isEmpty() && v.stream().allMatch(x -> x >= 0 && !Double.isInfinite(x)),
        "one or more finite numbers ≥ 0", "each", true, "nonEmpty", true, "min", 0, "finite", true);
  }

  public String expected() {
    return expected;
  }

  /** The check as data for other languages, or empty when only Java can run it ({@link #of(Test, String)}). */
  public java.util.Optional<Map<String, Object>> rule() {
    return java.util.Optional.ofNullable(rule).map(java.util.Collections::unmodifiableMap);
  }

  public boolean ok(T value) {
    return value != null && test.ok(value);
  }

  /**
   * Returns {@code value} when it passes.
   *
   * @throws DpTextException {@code SETTING_INVALID}: "NAME must be EXPECTED, got VALUE. HINT"
   */
  public T require(String name, T value, String hint) {
    if (!ok(value)) {
      throw failure(name, expected, value, hint);
    }
    return value;
  }

  /**
   * The one form of every dptext validation error: the catalogue's {@code SETTING_INVALID}, "NAME must be
   * EXPECTED, got VALUE. HINT (...)", the hint as a sentence ("Change NAME" without one). Python's
   * {@code dptext.options} raises the same entry with the same parameters, so that both say it in the same words.
   */
  public static DpTextException failure(String name, String expected, Object value, String hint) {
    String advice = hint == null || hint.isEmpty() ? "Change " + name
        : Character.toUpperCase(hint.charAt(0)) + hint.substring(1);
    return DpTextErrors.error("SETTING_INVALID", "setting", name, "expected", expected, "value", render(value),
        "hint", advice);
  }

  private static String render(Object value) {
    return value instanceof String s ? "'" + s + "'" : String.valueOf(value);
  }
}
