package dev.dptext.errors;

import dev.dptext.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The error catalogue ({@value #RESOURCE}), the one place a user-facing message is written (Delta's
 * {@code delta-error-classes.json} is the model). Each entry is keyed by a NAME in UPPER_SNAKE_CASE:
 * {@code {"exit": "USAGE", "message": "Output <path> exists.", "fix": "Pass --mode overwrite."}}; its exit is an
 * {@link Exit} category. A rendered error is one line, Spark's error-class style:
 * {@code [NAME] <message with its parameters> <fix>}, so that any client (Python, a Spark Connect client) reads
 * the name back from the text ({@link #nameOf}).
 *
 * <p>Parameters are checked: a parameter the entry does not name, or one it names and was not given, is a bug
 * and fails with {@link IllegalStateException}, never a half-rendered message; so is an unknown name.
 *
 * <p><b>What a parameter may hold:</b> names (of settings, columns, tables, mechanisms), paths, numbers, setting
 * values and the words of another error. Never a row's text, a word of the input, or key material (a key, a
 * secret's value): messages end up in logs, run summaries and the scheduler's UI.
 *
 * <p>The file is read once, with dptext's own JSON reader ({@link Json}: no JSON library of the host's classpath
 * is needed), wherever the library runs. The Python package carries a copy (its build copies this file) and
 * {@code docs/errors.md} is generated from it ({@link #markdownTable}).
 */
public final class DpTextErrors {
  /** The catalogue's resource path. */
  public static final String RESOURCE = "/dev/dptext/errors/error-classes.json";

  static final Pattern NAME = Pattern.compile("[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*");
  /** {@code [NAME] } at the start of a rendered message, or after a library's own prefix. */
  private static final Pattern RENDERED = Pattern.compile("\\[(" + NAME.pattern() + ")\\] ");

  private DpTextErrors() {}

  private static final class Holder {
    static final Map<String, ErrorClass> CATALOGUE = load();
  }

  /** Every entry, by name, in the file's order. */
  public static Map<String, ErrorClass> all() {
    return Holder.CATALOGUE;
  }

  /** The entry named {@code name}; an unknown name is a bug ({@link IllegalStateException}). */
  public static ErrorClass get(String name) {
    ErrorClass e = Holder.CATALOGUE.get(name);
    if (e == null) {
      throw new IllegalStateException("No error class " + name + " in " + RESOURCE);
    }
    return e;
  }

  /** The exception for entry {@code name}, with parameters given as name, value, name, value... */
  public static DpTextException error(String name, Object... parameters) {
    return new DpTextException(name, pairs(parameters), null);
  }

  /** The exception for entry {@code name} caused by {@code cause} (whose message is not quoted unless a parameter). */
  public static DpTextException error(Throwable cause, String name, Object... parameters) {
    return new DpTextException(name, pairs(parameters), cause);
  }

  /** name, value, name, value... as a map of rendered values (insertion order kept; serializable, like the values). */
  public static Map<String, String> pairs(Object... parameters) {
    if (parameters.length % 2 != 0) {
      throw new IllegalStateException("Error parameters come as name, value pairs: " + parameters.length + " items");
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < parameters.length; i += 2) {
      if (!(parameters[i] instanceof String key) || m.put(key, String.valueOf(parameters[i + 1])) != null) {
        throw new IllegalStateException("Error parameter names must be distinct strings: " + parameters[i]);
      }
    }
    return Collections.unmodifiableMap(m);
  }

  /**
   * The one-line text of entry {@code name} with {@code parameters}: {@code [NAME] message fix}.
   *
   * @throws IllegalStateException for an unknown name, a missing parameter or one the entry does not name
   */
  public static String render(String name, Map<String, ?> parameters) {
    ErrorClass e = get(name);
    if (!e.parameters().equals(parameters.keySet())) {
      TreeSet<String> missing = new TreeSet<>(e.parameters());
      missing.removeAll(parameters.keySet());
      TreeSet<String> extra = new TreeSet<>(parameters.keySet());
      extra.removeAll(e.parameters());
      throw new IllegalStateException("Error " + name + " rendered with the wrong parameters: missing " + missing
          + ", not in its template " + extra);
    }
    return "[" + name + "] " + substitute(e.message(), parameters) + " " + substitute(e.fix(), parameters);
  }

  private static String substitute(String template, Map<String, ?> parameters) {
    Matcher m = ErrorClass.PARAMETER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf(parameters.get(m.group(1)))));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The name of the first catalogued error quoted in {@code message} ({@code [NAME] ...}), if any. */
  public static Optional<String> nameOf(String message) {
    if (message == null) {
      return Optional.empty();
    }
    Matcher m = RENDERED.matcher(message);
    while (m.find()) {
      if (Holder.CATALOGUE.containsKey(m.group(1))) {
        return Optional.of(m.group(1));
      }
    }
    return Optional.empty();
  }

  /**
   * The parameters of entry {@code name} as rendered in {@code text}, read back by matching the entry's template
   * ({@code [NAME] message fix}, to the end of its line): what a client that received only the line (over Spark
   * Connect, from a Python worker) can still give to code that acts on the error. Exact or nothing: empty when the
   * text does not hold the entry's line whole, or when a value holds the words that follow it in the template so
   * that the line reads two ways (its shortest and longest readings differ).
   */
  public static Map<String, String> parametersOf(String name, String text) {
    ErrorClass e = Holder.CATALOGUE.get(name);
    if (e == null || text == null) {
      return Map.of();
    }
    List<String> order = new java.util.ArrayList<>();
    Optional<List<String>> shortest = reading(e, text, "*?", order);
    Optional<List<String>> longest = reading(e, text, "*", new java.util.ArrayList<>());
    if (shortest.isEmpty() || !shortest.equals(longest)) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < order.size(); i++) {
      out.put(order.get(i), shortest.get().get(i));
    }
    return Collections.unmodifiableMap(out);
  }

  /** The values of {@code e}'s parameters in {@code text} (in {@code order}, filled here), matched {@code .quantifier}. */
  private static Optional<List<String>> reading(ErrorClass e, String text, String quantifier, List<String> order) {
    String template = e.message() + " " + e.fix();
    StringBuilder regex = new StringBuilder(Pattern.quote("[" + e.name() + "] "));
    Matcher m = ErrorClass.PARAMETER.matcher(template);
    int at = 0;
    while (m.find()) {
      regex.append(Pattern.quote(template.substring(at, m.start())));
      int seen = order.indexOf(m.group(1));
      if (seen >= 0) {
        regex.append("\\k<p").append(seen).append('>');
      } else {
        regex.append("(?<p").append(order.size()).append(">.").append(quantifier).append(')');
        order.add(m.group(1));
      }
      at = m.end();
    }
    regex.append(Pattern.quote(template.substring(at))).append(SERVER_SUFFIX);
    Matcher found = Pattern.compile(regex.toString(), Pattern.MULTILINE).matcher(text);
    if (!found.find()) {
      return Optional.empty();
    }
    List<String> values = new java.util.ArrayList<>();
    for (int i = 0; i < order.size(); i++) {
      values.add(found.group("p" + i));
    }
    return Optional.of(values);
  }

  /** What may follow a rendered line: the job's exit-code mark on a Spark Connect server, then the line's end. */
  private static final String SERVER_SUFFIX = "(?: \\[dptext exit \\d\\])?[ \\t]*$";

  /** The catalogue as a Markdown table (name, exit code, message, fix): the generated block of {@code docs/errors.md}. */
  public static String markdownTable() {
    StringBuilder t = new StringBuilder("| Name | Exit | Message | Fix |\n|---|---|---|---|\n");
    for (ErrorClass e : Holder.CATALOGUE.values()) {
      t.append("| `").append(e.name()).append("` | ").append(e.exit().code).append(" (").append(e.exit().name())
          .append(") | ").append(cell(e.message())).append(" | ").append(cell(e.fix())).append(" |\n");
    }
    return t.toString();
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static Map<String, ErrorClass> load() {
    String text;
    try (InputStream in = DpTextErrors.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("The error catalogue " + RESOURCE + " is not on the classpath");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return parse(text);
  }

  /** The entries of a catalogue's text; a malformed entry is a bug ({@link IllegalStateException}). */
  static Map<String, ErrorClass> parse(String text) {
    Object root;
    try {
      root = Json.parse(text);
    } catch (Json.JsonException e) {
      throw new IllegalStateException(RESOURCE + " is not JSON: " + e.getMessage(), e);
    }
    if (!(root instanceof Map<?, ?> entries)) {
      throw new IllegalStateException(RESOURCE + " must be one object of entries");
    }
    Map<String, ErrorClass> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> entry : entries.entrySet()) {
      String name = (String) entry.getKey();
      if (!NAME.matcher(name).matches() || !(entry.getValue() instanceof Map<?, ?> fields)
          || !fields.keySet().equals(new java.util.HashSet<>(List.of("exit", "message", "fix")))
          || !(fields.get("exit") instanceof String exit) || !(fields.get("message") instanceof String message)
          || !(fields.get("fix") instanceof String fix)) {
        throw new IllegalStateException(RESOURCE + ": entry " + name + " must be UPPER_SNAKE_CASE with exactly the "
            + "strings exit, message and fix");
      }
      Exit category;
      try {
        category = Exit.valueOf(exit);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(RESOURCE + ": entry " + name + " has exit " + exit + ", not one of "
            + List.of(Exit.values()), e);
      }
      out.put(name, new ErrorClass(name, category, message, fix));
    }
    return Collections.unmodifiableMap(out);
  }
}
