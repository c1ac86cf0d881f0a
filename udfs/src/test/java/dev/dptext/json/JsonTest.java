package dev.dptext.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The header's hand-written JSON: strict RFC 8259 parsing, and string literals that parse back. */
class JsonTest {
  @Test
  void parsesAnyJsonValue() throws Exception {
    Object v = Json.parse(" \t\r\n{\"a\": [1, -0, 2.5e3, -1E-2, 12345678901234567890], \"b\": {\"c\": null, "
        + "\"d\": true, \"e\": false}, \"\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00 東京\"} ");
    Map<?, ?> m = (Map<?, ?>) v;
    assertEquals(List.of("a", "b", ""), List.copyOf(m.keySet()), "keys in order");
    assertEquals(List.of(new BigDecimal("1"), new BigDecimal("-0"), new BigDecimal("2.5e3"), new BigDecimal("-1E-2"),
        new BigDecimal("12345678901234567890")), m.get("a"));
    Map<?, ?> b = (Map<?, ?>) m.get("b");
    assertTrue(b.containsKey("c"));
    assertNull(b.get("c"));
    assertEquals(Boolean.TRUE, b.get("d"));
    assertEquals(Boolean.FALSE, b.get("e"));
    assertEquals("\"\\/\b\f\n\r\té\uD83D\uDE00 東京", m.get(""));
    assertEquals(List.of(), Json.parse("[]"));
    assertEquals(Map.of(), Json.parse("{ }"));
  }

  @Test
  void refusesWhatRfc8259DoesNotAllow() {
    for (String bad : List.of("", " ", "{", "{\"a\": 1,}", "[1, 2,]", "[1 2]", "{\"a\" 1}", "{'a': 1}", "{a: 1}",
        "01", "1.", ".5", "-", "1e", "+1", "0x10", "tru", "nul", "NaN", "Infinity", "\"open", "\"a\tb\"",
        "\"\\x\"", "\"\\u12G4\"", "\"\\u12\"", "{} {}", "[] x", "/* c */ {}", "{\"a\": 1} // c",
        "{\"a\": 1, \"a\": 2}")) {
      assertThrows(Json.JsonException.class, () -> Json.parse(bad), bad);
    }
    Json.JsonException duplicate = assertThrows(Json.JsonException.class, () -> Json.parse("{\"a\": 1, \"a\": 2}"));
    assertEquals(Json.Problem.DUPLICATE_KEY, duplicate.problem());
    assertEquals("duplicate key at character 9", duplicate.getMessage(), "the position, never the content");
  }

  @Test
  void nestingIsBounded() throws Exception {
    String ok = "[".repeat(Json.MAX_DEPTH + 1) + "]".repeat(Json.MAX_DEPTH + 1);
    Json.parse(ok);
    String deep = "[".repeat(Json.MAX_DEPTH + 2) + "]".repeat(Json.MAX_DEPTH + 2);
    Json.JsonException e = assertThrows(Json.JsonException.class, () -> Json.parse(deep));
    assertEquals(Json.Problem.TOO_DEEP, e.problem(), e.getMessage());
    assertEquals(Json.MAX_DEPTH + 1, e.at(), e.getMessage());
    String huge = "[".repeat(100_000);
    assertThrows(Json.JsonException.class, () -> Json.parse(huge), "no stack overflow");
  }

  @Test
  void quotedStringsParseBack() throws Exception {
    char[] all = new char[0x80];
    for (int i = 0; i < all.length; i++) {
      all[i] = (char) i;
    }
    for (String s : Arrays.asList(new String(all), "", "é東京\uD83D\uDE00", "lone \uD800 high", "lone \uDC00 low",
        "reversed \uDE00\uD83D pair", "end \uD83D", "\u2028\u2029\uFEFF")) {
      String q = Json.quote(s);
      assertEquals(s, Json.parse(q), q);
      for (int i = 0; i < q.length(); i++) { // no raw control character, no lone surrogate: valid UTF-8
        char c = q.charAt(i);
        assertTrue(c >= 0x20, q);
        if (Character.isHighSurrogate(c)) {
          assertTrue(i + 1 < q.length() && Character.isLowSurrogate(q.charAt(++i)), q);
        } else {
          assertTrue(!Character.isLowSurrogate(c), q);
        }
      }
    }
  }
}
