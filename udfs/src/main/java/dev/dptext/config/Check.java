package dev.dptext.config;

import java.io.Serializable;
import java.util.List;

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

  private Check(Test<T> test, String expected) {
    this.test = test;
    this.expected = expected;
  }

  public static <T> Check<T> of(Test<T> test, String expected) {
    return new Check<>(test, expected);
  }

  /** Anything (a check that never fails). */
  public static <T> Check<T> any() {
    return new Check<>(v -> true, ANY);
  }

  /** What {@link #any()} expects; a setting shows its type's description instead. */
  static final String ANY = "any value";

  public static Check<Double> positiveFinite() {
    return of(v -> v > 0 && !Double.isInfinite(v), "a positive finite number");
  }

  /** [0, 1]. */
  public static Check<Double> unitInterval() {
    return of(v -> v >= 0 && v <= 1, "in [0, 1]");
  }

  /** (0, 1]. */
  public static Check<Double> unitIntervalExcludingZero() {
    return of(v -> v > 0 && v <= 1, "in (0, 1]");
  }

  public static Check<Integer> between(int low, int high) {
    return of(v -> v >= low && v <= high, "in [" + low + ", " + high + "]");
  }

  public static Check<Integer> atLeast(int low) {
    return of(v -> v >= low, "≥ " + low);
  }

  public static Check<String> nonBlank() {
    return of(v -> !v.isBlank(), "a non-empty string");
  }

  /** One or more finite numbers ≥ 0. */
  public static Check<List<Double>> nonNegativeList() {
    return of(v -> !v.isEmpty() && v.stream().allMatch(x -> x >= 0 && !Double.isInfinite(x)),
        "one or more finite numbers ≥ 0");
  }

  public String expected() {
    return expected;
  }

  public boolean ok(T value) {
    return value != null && test.ok(value);
  }

  /**
   * Returns {@code value} when it passes.
   *
   * @throws IllegalArgumentException "NAME must be EXPECTED, got VALUE; HINT"
   */
  public T require(String name, T value, String hint) {
    if (!ok(value)) {
      throw failure(name, expected, value, hint);
    }
    return value;
  }

  /** The one form of every dptext validation error. */
  public static IllegalArgumentException failure(String name, String expected, Object value, String hint) {
    return new IllegalArgumentException(name + " must be " + expected + ", got " + render(value)
        + (hint == null || hint.isEmpty() ? "" : "; " + hint));
  }

  private static String render(Object value) {
    return value instanceof String s ? "'" + s + "'" : String.valueOf(value);
  }
}
