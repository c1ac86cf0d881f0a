package dev.dptext.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No method of the job is longer than {@value #LIMIT} lines, signature to closing brace: a longer one is a run of
 * phases that wants names (the batch run reads as its phases, {@code BatchSanitize.run}). Read from the sources,
 * by the project's layout (Google Java style: a member's body closes at its own indentation).
 */
class JobMethodLengthTest {
  static final int LIMIT = 80;
  private static final Pattern DECLARATION = Pattern.compile(
      "^( +)(?:(?:public|protected|private|static|final|synchronized|abstract|default)\\s+)*"
          + "(?:<[^>]+>\\s+)?[\\w.<>\\[\\], ?]+\\s+(\\w+)\\s*\\(.*");

  @Test
  void noMethodOfTheJobIsLongerThanTheLimit() throws IOException {
    List<String> tooLong = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
      for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        tooLong.addAll(longMethods(file, Files.readAllLines(file)));
      }
    }
    assertEquals(List.of(), tooLong, "methods over " + LIMIT + " lines: give their phases names");
  }

  @Test
  void theScanFindsALongMethodAndPassesAShortOne() {
    List<String> lines = new ArrayList<>(List.of("class A {", "  private static int longOne(int a,", "      int b) {"));
    for (int i = 0; i < LIMIT; i++) {
      lines.add("    a += b;");
    }
    lines.addAll(List.of("    return a;", "  }", "", "  void shortOne() {", "    if (true) {", "    }", "  }", "}"));
    assertEquals(List.of("A.java:2 longOne (" + (LIMIT + 4) + " lines)"), longMethods(Path.of("A.java"), lines));
  }

  static List<String> longMethods(Path file, List<String> lines) {
    List<String> found = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = DECLARATION.matcher(lines.get(i));
      String trimmed = lines.get(i).trim();
      if (!m.matches() || trimmed.startsWith("return ") || trimmed.startsWith("new ") || trimmed.contains(" = ")
          || trimmed.startsWith("throw ") || trimmed.startsWith("else ")
          || trimmed.matches(".*\\b(record|class|interface|enum)\\s+\\w+.*")) { // a type (a record's header), not a method
        continue;
      }
      int open = i;
      while (open < lines.size() && !lines.get(open).contains("{") && !lines.get(open).trim().endsWith(";")) {
        open++;
      }
      if (open >= lines.size() || !lines.get(open).trim().endsWith("{")) {
        continue; // an abstract or interface method, or a call
      }
      String close = m.group(1) + "}";
      int end = open + 1;
      while (end < lines.size() && !(lines.get(end).startsWith(close)
          && lines.get(end).length() - lines.get(end).stripLeading().length() == m.group(1).length())) {
        end++;
      }
      int length = end - i + 1;
      if (end < lines.size() && length > LIMIT) {
        found.add(file.getFileName() + ":" + (i + 1) + " " + m.group(2) + " (" + length + " lines)");
      }
    }
    return found;
  }
}
