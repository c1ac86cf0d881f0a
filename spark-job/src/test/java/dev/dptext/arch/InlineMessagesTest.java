package dev.dptext.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A user-facing message is written in the error catalogue ({@code dev.dptext.errors.DpTextErrors}, docs/errors.md)
 * and nowhere else: raised with {@code DpTextErrors.error("NAME", ...)}, {@code JobException.of("NAME", ...)} or,
 * in Python, {@code DpTextError.of("NAME", ...)}. This test fails on a message written inline in the main sources
 * of udfs and spark-job or in python/src/dptext:
 *
 * <ul>
 *   <li>Java: {@code new SomethingException(...)} or {@code new SomethingError(...)} whose arguments hold a string
 *       literal. (The job's inline form, {@code new JobException(ExitCode, message)}, is gone: its constructors
 *       are private to the catalogue's {@code of}, {@code from} and {@code wrap}.)
 *   <li>Python: {@code raise SomethingError(...)} or {@code SomethingError(...)} of dptext's {@code DpTextError} /
 *       {@code ModelError} whose arguments hold a string literal.
 * </ul>
 *
 * <p>The internal rule: an {@link IllegalStateException} (Java) or {@code AssertionError} (both) states an
 * invariant of dptext's own code that no user input can break — a bug check — and may keep its words inline. A
 * failure a user can cause (a setting, an argument, a file, a table) must not be one of those.
 */
class InlineMessagesTest {
  /** {@code new X(} in Java: a throwable when X ends in Exception or Error or extends one ({@link #throwables}). */
  private static final Pattern JAVA_NEW = Pattern.compile("\\bnew\\s+(?:[a-z]\\w*\\.)*([A-Z]\\w*)\\s*\\(");
  /** A Java class declaration and its superclass, e.g. {@code class Unreachable extends DpTextException}. */
  private static final Pattern JAVA_EXTENDS = Pattern.compile("\\bclass\\s+(\\w+)\\s+extends\\s+(?:[\\w.]*\\.)?(\\w+)");
  /** Python: an exception class called (raised or returned), e.g. {@code raise ValueError(} or {@code DpTextError(}. */
  private static final Pattern PYTHON_CALL = Pattern.compile("\\b([A-Z]\\w*(?:Error|Exception))\\(");
  private static final List<String> INTERNAL = List.of("IllegalStateException", "AssertionError");

  @Test
  void noMessageIsWrittenInline() throws IOException {
    assertEquals(Map.of(), scan(), "inline user-facing messages, per file: raise each from the catalogue "
        + "(udfs/src/main/resources/dev/dptext/errors/error-classes.json), or make a bug check an "
        + "IllegalStateException / AssertionError");
  }

  @Test
  void theScanSeesLiteralsAndSkipsTheCatalogueAndBugChecks() {
    assertEquals(4, countJava("""
        final class Unreachable extends DpTextException {}
        throw new Unreachable(path + " is not local");
        throw new Unreachable(path);
        throw new CommittedThenConflicted(v, JobException.of("IN_PLACE_LATER_COMMITS", "path", p));
        throw new IllegalArgumentException("x must be positive, got " + x);
        throw new dev.dptext.job.base.JobException(dev.dptext.job.base.ExitCode.USAGE, "x");
        return new java.io.IOException(
            name + " is truncated");
        throw new IllegalStateException("a bug: " + x);
        throw JobException.of("OUTPUT_EXISTS", "path", p);
        throw new IllegalArgumentException(e.getMessage(), e);
        """));
    assertEquals(3, countPython("""
        raise ValueError(f"{name} must be positive")
        raise DpTextError(
            "no model")
        return DpTextError(message + ": x")
        raise DpTextError.of("MODEL_NOT_FOUND", path=p)
        raise AssertionError("bug")
        raise ValueError(message)
        """));
  }

  /**
   * And the catalogue holds no entry nothing raises: every name is quoted ({@code "NAME"}) in the main sources of
   * the job, the library or the Python package, so a refusal renamed on one side cannot leave its old entry behind.
   */
  @Test
  void everyCatalogueEntryIsRaisedSomewhere() throws IOException {
    String sources = String.join("\n", sources().values());
    List<String> unused = dev.dptext.errors.DpTextErrors.all().keySet().stream()
        .filter(name -> !sources.contains("\"" + name + "\"")).toList();
    assertEquals(List.of(), unused, "entries of the error catalogue that nothing raises: remove them");
  }

  /** Inline messages per file, by path from the repository root. */
  static Map<String, Integer> scan() throws IOException {
    Map<String, String> sources = sources();
    java.util.Set<String> throwables = throwables(sources.entrySet().stream().filter(e -> e.getKey().endsWith(".java"))
        .map(Map.Entry::getValue).collect(java.util.stream.Collectors.joining("\n")));
    Map<String, Integer> found = new TreeMap<>();
    sources.forEach((file, text) -> {
      int n = file.endsWith(".java") ? countJava(text, throwables) : countPython(text);
      if (n > 0) {
        found.put(file, n);
      }
    });
    return found;
  }

  /** The main sources of udfs, spark-job and the Python package, by path from the repository root. */
  static Map<String, String> sources() throws IOException {
    Map<String, String> sources = new TreeMap<>();
    Path root = Path.of("..");
    for (String dir : List.of("udfs/src/main/java", "spark-job/src/main/java", "python/src/dptext")) {
      try (Stream<Path> files = Files.walk(root.resolve(dir))) {
        for (Path p : (Iterable<Path>) files.sorted()::iterator) {
          String name = p.toString();
          if (name.endsWith(".java") || name.endsWith(".py")) {
            sources.put(root.relativize(p).toString().replace('\\', '/'), Files.readString(p, StandardCharsets.UTF_8));
          }
        }
      }
    }
    return sources;
  }


  static int countJava(String text) {
    return countJava(text, throwables(text));
  }

  /**
   * The names of dptext's throwables declared in {@code sources}: whatever extends a class whose name ends in
   * Exception or Error, or extends one of these (a refusal type need not say it is one: {@code Storage.Unreachable}).
   */
  static java.util.Set<String> throwables(String sources) {
    Map<String, String> parents = new TreeMap<>();
    Matcher m = JAVA_EXTENDS.matcher(sources);
    while (m.find()) {
      parents.put(m.group(1), m.group(2));
    }
    java.util.Set<String> found = new java.util.TreeSet<>();
    for (boolean grew = true; grew; ) {
      grew = false;
      for (Map.Entry<String, String> e : parents.entrySet()) {
        String parent = e.getValue();
        if (!found.contains(e.getKey()) && (isThrowableName(parent) || found.contains(parent))) {
          grew = found.add(e.getKey());
        }
      }
    }
    return found;
  }

  private static boolean isThrowableName(String type) {
    return type.endsWith("Exception") || type.endsWith("Error");
  }

  static int countJava(String text, java.util.Set<String> throwables) {
    int n = 0;
    Matcher m = JAVA_NEW.matcher(text);
    while (m.find()) {
      String type = m.group(1);
      if (INTERNAL.contains(type) || !isThrowableName(type) && !throwables.contains(type)) {
        continue;
      }
      String args = withoutCatalogueCalls(arguments(text, m.end()));
      if (args.contains("\"")) {
        n++;
      }
    }
    return n;
  }

  static int countPython(String text) {
    int n = 0;
    Matcher m = PYTHON_CALL.matcher(text);
    while (m.find()) {
      String type = m.group(1);
      if (INTERNAL.contains(type) || text.startsWith("class ", lineStart(text, m.start()))) {
        continue;
      }
      String args = arguments(text, m.end());
      if (args.contains("\"") || args.contains("'")) {
        n++;
      }
    }
    return n;
  }

  private static int lineStart(String text, int at) {
    int s = text.lastIndexOf('\n', at) + 1;
    while (s < at && text.charAt(s) == ' ') {
      s++;
    }
    return s;
  }

  /** A catalogue call ({@code JobException.of(...)}, {@code DpTextErrors.error(...)}): its literals are names. */
  private static final Pattern CATALOGUE_CALL = Pattern.compile("\\b(?:JobException\\.of|DpTextErrors\\.error)\\s*\\(");

  /** {@code args} without the catalogue calls it holds (a throwable that wraps a catalogued error). */
  private static String withoutCatalogueCalls(String args) {
    Matcher m = CATALOGUE_CALL.matcher(args);
    if (!m.find()) {
      return args;
    }
    String inner = arguments(args, m.end());
    return args.substring(0, m.start()) + withoutCatalogueCalls(args.substring(Math.min(args.length(),
        m.end() + inner.length() + 1)));
  }

  /** The text from {@code from} to the parenthesis that closes the call (strings skipped; at most 2,000 chars). */
  private static String arguments(String text, int from) {
    int depth = 1;
    char quote = 0;
    int end = Math.min(text.length(), from + 2000);
    for (int i = from; i < end; i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        return text.substring(from, i);
      }
    }
    return text.substring(from, end);
  }
}
