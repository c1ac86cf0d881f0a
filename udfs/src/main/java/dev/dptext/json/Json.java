package dev.dptext.json;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * dptext's JSON, written and parsed by hand: a version 2 model file's header ({@code docs/model-format.md})
 * and the error catalogue ({@code dev.dptext.errors}).
 *
 * <p>Why not Jackson: this reader runs wherever dptext loads a model (a classic session's driver and
 * executors, a Spark Connect server, the job as a serverless JAR task on a Spark Connect client's
 * classpath, the benchmarks), and Jackson is guaranteed in none of those by anything dptext controls.
 * dptext declares no dependency on it: it comes with Spark ({@code provided}), in whatever version the
 * cluster's Spark ships, with that version's read limits. On a Connect client it is a transitive
 * dependency of {@code spark-connect-client-jvm} (4.0.1 as Maven Central serves it lists
 * jackson-databind 2.18.2), not part of the client's API: Spark shades the client's other libraries
 * and may shade this one, and Databricks' own client is not tried here. The header's content is fixed
 * and small (strings, integers and booleans, in objects and lists three levels deep), so a strict
 * RFC 8259 parser in this one file costs less than a model reader that depends on the host's classpath.
 *
 * <p>{@link #parse} reads any JSON text (so that other writers may format the header as they like and add
 * keys readers ignore) into {@code Map<String, Object>} (insertion order kept), {@code List<Object>},
 * {@code String}, {@link BigDecimal}, {@code Boolean} and {@code null}. It refuses duplicate keys, nesting
 * deeper than {@value #MAX_DEPTH}, and anything RFC 8259 does not allow (comments, trailing commas, single
 * quotes, raw control characters in strings, leading zeros). {@link #quote} writes a string literal.
 */
public final class Json {
  /** Deeper than any header needs (the spec's is 4 levels), shallow enough for any thread's stack. */
  public static final int MAX_DEPTH = 64;

  /**
   * What is wrong where JSON text stops being JSON: a parser's diagnostic, never a message of its own. Its
   * callers raise the catalogued error of what they read (a model header: {@code MODEL_CORRUPTED}, whose
   * {@code what} quotes {@link JsonException#getMessage}); this package imports nothing of dptext, so it
   * cannot raise from the catalogue itself.
   */
  public enum Problem {
    TEXT_AFTER_VALUE("text after the JSON value"),
    TOO_DEEP("nested deeper than " + MAX_DEPTH),
    END_BEFORE_VALUE("end of text where a value should be"),
    UNEXPECTED_CHARACTER("unexpected character"),
    KEY_EXPECTED("expected a key"),
    DUPLICATE_KEY("duplicate key"),
    OBJECT_SEPARATOR_EXPECTED("expected ',' or '}'"),
    ARRAY_SEPARATOR_EXPECTED("expected ',' or ']'"),
    CONTROL_CHARACTER("a control character in a string"),
    END_IN_UNICODE_ESCAPE("end of text in a \\u escape"),
    BAD_UNICODE_ESCAPE("a \\u escape that is not 4 hex digits"),
    UNKNOWN_ESCAPE("an unknown escape"),
    NO_DIGITS("a number without digits"),
    NO_FRACTION_DIGITS("a number without digits after its point"),
    NO_EXPONENT_DIGITS("a number without exponent digits"),
    NUMBER_OUT_OF_RANGE("a number out of range"),
    COLON_EXPECTED("expected ':'"),
    UNEXPECTED_END("unexpected end of text");

    private final String description;

    Problem(String description) {
      this.description = description;
    }

    /** The problem in words, for the {@code what} of the caller's catalogued error. */
    public String description() {
      return description;
    }
  }

  /** Text that is not JSON: the {@link Problem} and the character where it is; never the content. */
  public static final class JsonException extends Exception {
    private static final long serialVersionUID = 1L;

    private final Problem problem;
    private final int at;

    JsonException(Problem problem, int at) {
      super(problem.description() + " at character " + at);
      this.problem = problem;
      this.at = at;
    }

    public Problem problem() {
      return problem;
    }

    /** The (0-based) index of the character where the text stops being JSON. */
    public int at() {
      return at;
    }
  }

  private final String text;
  private int pos;

  private Json(String text) {
    this.text = text;
  }

  /** The value {@code text} holds, with nothing but whitespace around it. */
  public static Object parse(String text) throws JsonException {
    Json p = new Json(text);
    p.skipWhitespace();
    Object value = p.value(0);
    p.skipWhitespace();
    if (p.pos != text.length()) {
      throw new JsonException(Problem.TEXT_AFTER_VALUE, p.pos);
    }
    return value;
  }

  private Object value(int depth) throws JsonException {
    if (depth > MAX_DEPTH) {
      throw new JsonException(Problem.TOO_DEEP, pos);
    }
    if (pos >= text.length()) {
      throw new JsonException(Problem.END_BEFORE_VALUE, pos);
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return string();
      case 't':
        literal("true");
        return Boolean.TRUE;
      case 'f':
        literal("false");
        return Boolean.FALSE;
      case 'n':
        literal("null");
        return null;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw new JsonException(Problem.UNEXPECTED_CHARACTER, pos);
    }
  }

  private Map<String, Object> object(int depth) throws JsonException {
    Map<String, Object> map = new LinkedHashMap<>();
    pos++; // {
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return map;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw new JsonException(Problem.KEY_EXPECTED, pos);
      }
      int keyAt = pos;
      String key = string();
      skipWhitespace();
      colon();
      skipWhitespace();
      Object v = value(depth + 1);
      if (map.containsKey(key)) {
        throw new JsonException(Problem.DUPLICATE_KEY, keyAt);
      }
      map.put(key, v);
      skipWhitespace();
      char c = next();
      if (c == '}') {
        return map;
      }
      if (c != ',') {
        throw new JsonException(Problem.OBJECT_SEPARATOR_EXPECTED, pos - 1);
      }
    }
  }

  private List<Object> array(int depth) throws JsonException {
    List<Object> list = new ArrayList<>();
    pos++; // [
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      return list;
    }
    while (true) {
      skipWhitespace();
      list.add(value(depth + 1));
      skipWhitespace();
      char c = next();
      if (c == ']') {
        return list;
      }
      if (c != ',') {
        throw new JsonException(Problem.ARRAY_SEPARATOR_EXPECTED, pos - 1);
      }
    }
  }

  private String string() throws JsonException {
    pos++; // opening quote
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return sb.toString();
      }
      if (c < 0x20) {
        throw new JsonException(Problem.CONTROL_CHARACTER, pos - 1);
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          if (pos + 4 > text.length()) {
            throw new JsonException(Problem.END_IN_UNICODE_ESCAPE, pos);
          }
          int code = 0;
          for (int i = 0; i < 4; i++) {
            int d = Character.digit(text.charAt(pos + i), 16);
            if (d < 0) {
              throw new JsonException(Problem.BAD_UNICODE_ESCAPE, pos);
            }
            code = code * 16 + d;
          }
          pos += 4;
          sb.append((char) code);
        }
        default -> throw new JsonException(Problem.UNKNOWN_ESCAPE, pos - 1);
      }
    }
  }

  private BigDecimal number() throws JsonException {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    if (peek() == '0') {
      pos++;
    } else if (isDigit(peek())) {
      digits();
    } else {
      throw new JsonException(Problem.NO_DIGITS, pos);
    }
    if (peek() == '.') {
      pos++;
      if (!isDigit(peek())) {
        throw new JsonException(Problem.NO_FRACTION_DIGITS, pos);
      }
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      if (!isDigit(peek())) {
        throw new JsonException(Problem.NO_EXPONENT_DIGITS, pos);
      }
      digits();
    }
    try {
      return new BigDecimal(text.substring(start, pos));
    } catch (NumberFormatException | ArithmeticException e) {
      throw new JsonException(Problem.NUMBER_OUT_OF_RANGE, start);
    }
  }

  private void digits() {
    while (isDigit(peek())) {
      pos++;
    }
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private void literal(String word) throws JsonException {
    if (!text.startsWith(word, pos)) {
      throw new JsonException(Problem.UNEXPECTED_CHARACTER, pos);
    }
    pos += word.length();
  }

  private void colon() throws JsonException {
    if (next() != ':') {
      throw new JsonException(Problem.COLON_EXPECTED, pos - 1);
    }
  }


  /** The next character, or NUL at the end (never valid where it is looked for). */
  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private char next() throws JsonException {
    if (pos >= text.length()) {
      throw new JsonException(Problem.UNEXPECTED_END, pos);
    }
    return text.charAt(pos++);
  }

  private void skipWhitespace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  /**
   * {@code s} as a JSON string literal: quote, backslash and control characters escaped, and a lone
   * surrogate (which UTF-8 cannot encode) as its {@code \\u} escape, so that parsing gives {@code s} back;
   * everything else as is (the header is UTF-8).
   */
  public static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          boolean pairedHigh = Character.isHighSurrogate(c) && i + 1 < s.length()
              && Character.isLowSurrogate(s.charAt(i + 1));
          if (pairedHigh) {
            sb.append(c).append(s.charAt(++i));
          } else if (c < 0x20 || Character.isSurrogate(c)) {
            sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
