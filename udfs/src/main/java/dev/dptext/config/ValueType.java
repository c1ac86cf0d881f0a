package dev.dptext.config;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a setting's value is written as text (Spark conf, command line, {@code name:param=value}) and
 * read back, and which Java type it has on the typed surfaces (the Java builder, ML Params).
 *
 * @param <T> the Java type of the value
 */
public abstract class ValueType<T> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The shape of a value, which decides the ML Param class and the command-line arity. */
  public enum Kind { STRING, INT, DOUBLE, BOOLEAN, DOUBLE_LIST }

  private final Kind kind;
  private final String expected;
  private final List<String> choices;

  private ValueType(Kind kind, String expected) {
    this(kind, expected, List.of());
  }

  private ValueType(Kind kind, String expected, List<String> choices) {
    this.kind = kind;
    this.expected = expected;
    this.choices = List.copyOf(choices);
  }

  /** A choice's canonical names (other spellings may be accepted too); empty for other types. */
  public List<String> choices() {
    return choices;
  }

  public Kind kind() {
    return kind;
  }

  /** What a value of this type is, in words: {@code "a number"}, {@code "one of random, placeholder, keep"}. */
  public String expected() {
    return expected;
  }

  /** Parses {@code text}; a malformed value fails with {@link Check#failure} naming {@code name}. */
  public final T parse(String name, String text) {
    if (text == null) {
      throw Check.failure(name, expected, null, null);
    }
    try {
      return parseText(text.strip());
    } catch (IllegalArgumentException e) {
      throw Check.failure(name, expected, text, null);
    }
  }

  abstract T parseText(String text);

  /** The value as text that {@link #parse} reads back to an equal value. */
  public String format(T value) {
    return String.valueOf(value);
  }

  /** A typed value from a typed surface: the type itself, a boxed number, a {@code double[]} or text. */
  public final T coerce(String name, Object value) {
    if (value instanceof String s) {
      return parse(name, s);
    }
    try {
      return coerceObject(value);
    } catch (ClassCastException | IllegalArgumentException e) {
      throw Check.failure(name, expected, value, null);
    }
  }

  abstract T coerceObject(Object value);

  public static final ValueType<String> STRING = new ValueType<>(Kind.STRING, "a string") {
    @Override
    String parseText(String text) {
      return text;
    }

    @Override
    String coerceObject(Object value) {
      return (String) value;
    }
  };

  public static final ValueType<Integer> INT = new ValueType<>(Kind.INT, "an integer") {
    @Override
    Integer parseText(String text) {
      return Integer.parseInt(text);
    }

    @Override
    Integer coerceObject(Object value) {
      return (Integer) value;
    }
  };

  public static final ValueType<Double> DOUBLE = new ValueType<>(Kind.DOUBLE, "a number") {
    @Override
    Double parseText(String text) {
      return Double.parseDouble(text);
    }

    @Override
    Double coerceObject(Object value) {
      return ((Number) value).doubleValue();
    }
  };

  public static final ValueType<Boolean> BOOLEAN = new ValueType<>(Kind.BOOLEAN, "true or false") {
    @Override
    Boolean parseText(String text) {
      if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
        return Boolean.parseBoolean(text);
      }
      throw new IllegalArgumentException(text);
    }

    @Override
    Boolean coerceObject(Object value) {
      return (Boolean) value;
    }
  };

  /**
   * A list of numbers, written comma- or semicolon-separated ({@code 0,0.5,1}; the semicolon where
   * the comma separates parameters, as in {@code vickrey-topk:t=0;0.5;1}).
   */
  public static final ValueType<List<Double>> DOUBLE_LIST =
      new ValueType<>(Kind.DOUBLE_LIST, "a number or a list of numbers separated by ',' or ';'") {
        @Override
        List<Double> parseText(String text) {
          List<Double> out = new ArrayList<>();
          for (String part : text.split("[,;]")) {
            out.add(Double.parseDouble(part.strip()));
          }
          return List.copyOf(out);
        }

        @Override
        public String format(List<Double> value) {
          return value.stream().map(String::valueOf).collect(Collectors.joining(","));
        }

        @Override
        List<Double> coerceObject(Object value) {
          if (value instanceof double[] a) {
            List<Double> out = new ArrayList<>();
            for (double x : a) {
              out.add(x);
            }
            return List.copyOf(out);
          }
          if (value instanceof Number n) {
            return List.of(n.doubleValue());
          }
          List<Double> out = new ArrayList<>();
          for (Object x : (List<?>) value) {
            out.add(((Number) x).doubleValue());
          }
          return List.copyOf(out);
        }
      };

  /**
   * One of a fixed set of names, stored in its canonical spelling: {@code canonical} maps any
   * accepted spelling (case, aliases) to it, or throws.
   */
  public static ValueType<String> choice(List<String> names, Check.Test<String> accepted, Canonical canonical) {
    String expected = "one of " + String.join(", ", names);
    return new ValueType<>(Kind.STRING, expected, names) {
      @Override
      String parseText(String text) {
        if (!accepted.ok(text)) {
          throw new IllegalArgumentException(text);
        }
        return canonical.apply(text);
      }

      @Override
      String coerceObject(Object value) {
        return parseText((String) value);
      }
    };
  }

  /**
   * The constants of an enum, spelled in lower case with '-' for '_' ({@code CONTENT_HASH} →
   * {@code content-hash}); {@code parse} decides which spellings (and aliases) are accepted.
   */
  public static <E extends Enum<E>> ValueType<String> choice(Class<E> type, Parser<E> parse) {
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      names.add(label(e));
    }
    return choice(names, t -> {
      try {
        parse.apply(t);
        return true;
      } catch (IllegalArgumentException e) {
        return false;
      }
    }, t -> label(parse.apply(t)));
  }

  /** Maps an accepted spelling to the canonical one (serializable: types travel with ML stages). */
  public interface Canonical extends java.util.function.UnaryOperator<String>, Serializable {}

  /** Parses an enum constant, throwing IllegalArgumentException for an unknown name. */
  public interface Parser<E> extends java.util.function.Function<String, E>, Serializable {}

  /** An enum constant's name as settings spell it. */
  public static String label(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
