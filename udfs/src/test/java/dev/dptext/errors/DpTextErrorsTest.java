package dev.dptext.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.testing.ErrorAssertions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The catalogue's file is well formed, and an error renders as its one line with checked parameters. */
class DpTextErrorsTest {
  @Test
  void everyEntryIsNamedSortedAndComplete() {
    List<String> names = new ArrayList<>(DpTextErrors.all().keySet());
    List<String> sorted = new ArrayList<>(names);
    java.util.Collections.sort(sorted);
    assertEquals(sorted, names, "entries are kept in alphabetical order (merges stay simple)");
    for (ErrorClass e : DpTextErrors.all().values()) {
      assertTrue(DpTextErrors.NAME.matcher(e.name()).matches(), e.name());
      for (String text : new String[] {e.message(), e.fix()}) {
        assertFalse(text.isBlank(), e.name() + ": a message and a fix");
        assertTrue(text.endsWith(".") || text.endsWith(")") && text.contains("."), e.name() + ": sentences: " + text);
        // Words between any two parameters, so that a client holding only the line reads each back (parametersOf).
        assertFalse(text.matches(".*<[a-zA-Z0-9]+><[a-zA-Z0-9]+>.*"), e.name() + ": adjacent parameters: " + text);
        assertFalse(text.contains("\n"), e.name() + ": one line");
        // '<' and '>' are only the parameters' brackets: a template says "at most", not "<=".
        assertEquals(text.chars().filter(c -> c == '<').count(), ErrorClass.PARAMETER.matcher(text).results().count(),
            e.name() + ": a '<' that is not a parameter: " + text);
      }
    }
  }

  @Test
  void anErrorRendersAsOneLineWithItsNameFirst() {
    DpTextException e = DpTextErrors.error("OUTPUT_EXISTS", "path", "/out", "kind", "a Delta table");
    assertEquals("[OUTPUT_EXISTS] --output /out already exists (a Delta table). Choose --mode overwrite, append, "
        + "replace-where or merge, or another --output.", e.getMessage());
    assertEquals(Exit.USAGE, e.exit());
    ErrorAssertions.assertError(e, "OUTPUT_EXISTS", Map.of("path", "/out", "kind", "a Delta table"));
    assertEquals(java.util.Optional.of("OUTPUT_EXISTS"), DpTextErrors.nameOf("org.x.SomeException: " + e.getMessage()));
    assertEquals(java.util.Optional.empty(), DpTextErrors.nameOf("[NOT_AN_ENTRY] x"));
  }

  @Test
  void aMissingOrExtraParameterOrAnUnknownNameIsABug() {
    assertThrows(IllegalStateException.class, () -> DpTextErrors.error("OUTPUT_EXISTS", "path", "/out"));
    assertThrows(IllegalStateException.class,
        () -> DpTextErrors.error("OUTPUT_EXISTS", "path", "/out", "kind", "x", "extra", 1));
    assertThrows(IllegalStateException.class, () -> DpTextErrors.error("OUTPUT_EXISTS", "path"));
    assertThrows(IllegalStateException.class, () -> DpTextErrors.error("NO_SUCH_ERROR"));
  }

  @Test
  void aMalformedCatalogueIsRefused() {
    assertThrows(IllegalStateException.class, () -> DpTextErrors.parse("{\"lower\": {\"exit\": \"USAGE\", "
        + "\"message\": \"m.\", \"fix\": \"f.\"}}"));
    assertThrows(IllegalStateException.class, () -> DpTextErrors.parse("{\"A\": {\"exit\": \"SOMETIMES\", "
        + "\"message\": \"m.\", \"fix\": \"f.\"}}"));
    assertThrows(IllegalStateException.class, () -> DpTextErrors.parse("{\"A\": {\"exit\": \"USAGE\", "
        + "\"message\": \"m.\"}}"));
  }

  @Test
  void theErrorSurvivesJavaSerialization() throws Exception {
    DpTextException e = DpTextErrors.error("OUTPUT_EXISTS", "path", "/out", "kind", "a Delta table");
    var bytes = new java.io.ByteArrayOutputStream();
    try (var out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(e);
    }
    try (var in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      ErrorAssertions.assertError((Throwable) in.readObject(), "OUTPUT_EXISTS", e.parameters());
    }
  }

  /**
   * Every entry's parameters are read back from its rendered line, as a client that received only the line does:
   * after a prefix, before the server's exit mark or a stack trace. A line that reads two ways (values holding the
   * template's own words: spaces, brackets, full stops) gives nothing, never a wrong value.
   */
  @Test
  void everyEntrysParametersAreReadBackFromItsLineExactlyOrNotAtAll() {
    int ambiguous = 0;
    for (ErrorClass e : DpTextErrors.all().values()) {
      for (boolean plain : new boolean[] {true, false}) {
        Map<String, String> parameters = new java.util.LinkedHashMap<>();
        int i = 0;
        for (String p : e.parameters()) {
          parameters.put(p, plain ? (i++ % 2 == 0 ? "/a_dir/" + p + "-1.json" : p + ":7.5,x")
              : (i++ % 2 == 0 ? "/a dir/" + p + " (1).json" : "[" + p + ", 7.5]."));
        }
        String line = DpTextErrors.render(e.name(), parameters);
        for (String text : List.of(line, "dptext: " + line, "x.Y: " + line + " [dptext exit 2]",
            "dptext.errors.DpTextException: " + line + "\n\tat dev.dptext.Z.z(Z.java:1)")) {
          Map<String, String> read = DpTextErrors.parametersOf(e.name(), text);
          if (plain) {
            assertEquals(parameters, read, e.name() + " in: " + text);
          } else if (!read.equals(parameters)) {
            assertEquals(Map.of(), read, e.name() + ": a wrong reading of: " + text);
            ambiguous++;
          }
        }
      }
    }
    assertTrue(ambiguous > 0, "the spaced values must include a line that reads two ways");
    assertEquals(Map.of(), DpTextErrors.parametersOf("OUTPUT_EXISTS", "[OUTPUT_EXISTS] something else"));
    assertEquals(Map.of(), DpTextErrors.parametersOf("NO_SUCH_ENTRY", "[NO_SUCH_ENTRY] x"));
  }
}
