package dev.dptext.text;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.SanText;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.ErrorAssertions;
import dev.dptext.testing.Fixtures;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TextSanitizerTest {
  //                                    0      1    2     3      4      5     6      7       8
  private static final String[] WORDS = {"the", ",", ".", "cat", "sat", "on", "mat", "late", "hello",
    //  9      10    11     12            13
    "was", "do", "n't", "well-known", "dog"};
  private static final Embeddings EMB = embeddings();
  private static final String CANARY = "Zyxwvut";

  private static Embeddings embeddings() {
    float[] v = new float[WORDS.length * 2];
    for (int i = 0; i < WORDS.length; i++) {
      v[2 * i] = i;
      v[2 * i + 1] = (i * 7) % 5;
    }
    return new Embeddings(WORDS, v, 2);
  }

  private static int r(String w) {
    int i = EMB.indexOf(w);
    assertTrue(i >= 0, w);
    return i;
  }

  /** A deterministic test mechanism: f(rank), outputs in [outputStart, size). Uses no randomness. */
  private static final class MapMechanism implements WordMechanism {
    private static final long serialVersionUID = 1L;
    private final Map<Integer, Integer> map;
    private final int shift;
    private final int start;

    /** rank → (rank + shift) mod size, unless {@code map} says otherwise. */
    MapMechanism(int shift, Map<Integer, Integer> map, int start) {
      this.shift = shift;
      this.map = map;
      this.start = start;
    }

    @Override
    public int sanitize(int word, RandomStream random) {
      Integer y = map.get(word);
      return y != null ? y : (word + shift) % EMB.size();
    }

    @Override
    public int outputStart() {
      return start;
    }

    @Override
    public String name() {
      return "test-map";
    }
  }

  private static final WordMechanism IDENTITY = new MapMechanism(0, Map.of(), 0);
  private static final WordMechanism NEXT = new MapMechanism(1, Map.of(), 0);

  private static TextSanitizer sanitizer(WordMechanism m, OovPolicy oov, CasePolicy c) {
    return new TextSanitizer(EMB, m, oov, "<unk>", c);
  }

  private static String run(TextSanitizer s, String text) {
    return s.sanitize(text, RandomStream.fromSeed(1), null);
  }

  // ---------------------------------------------------------------- trivial inputs and layout

  @Test
  void nullEmptyAndWhitespaceOnly() {
    TextSanitizer s = new TextSanitizer(EMB, NEXT);
    assertNull(s.sanitize(null, RandomStream.fromSeed(1), null));
    assertEquals("", run(s, ""));
    for (String ws : new String[] {" ", "   ", "\t", "\n", " \t\r\n \n", "\u2003\u3000", "\u2028"}) {
      TokenCounts counts = new TokenCounts();
      assertEquals(ws, s.sanitize(ws, RandomStream.fromSeed(1), counts));
      assertEquals(0, counts.tokens);
    }
  }

  @Test
  void whitespaceLayoutIsPreservedExactly() {
    TextSanitizer s = sanitizer(NEXT, OovPolicy.RANDOM, CasePolicy.VOCABULARY);
    // cat→sat, sat→on, on→mat, the→",", mat→late, hello→was, dog→the
    assertEquals("  sat\ton  mat\n\n, late \r\n", run(s, "  cat\tsat  on\n\nthe mat \r\n"));
    assertEquals("\t\twas\u3000the\u2003\n", run(s, "\t\thello\u3000dog\u2003\n"));
    String text = " \n\tcat  sat on\tthe\n\n\nmat \t hello   dog\r\n ";
    String out = run(s, text);
    assertEquals(text.replaceAll("[^ \t\r\n]+", "X"), out.replaceAll("[^ \t\r\n]+", "X"));
  }

  @Test
  void identityMechanismReproducesVocabularyText() {
    TextSanitizer s = sanitizer(IDENTITY, OovPolicy.RANDOM, CasePolicy.VOCABULARY);
    String text = "  the cat,\tsat on the  mat.\nhello, well-known dog ";
    assertEquals(text, run(s, text));
  }

  // ---------------------------------------------------------------- case

  @Test
  void vocabularyCaseByDefault() {
    TextSanitizer s = new TextSanitizer(EMB, IDENTITY);
    assertEquals(CasePolicy.VOCABULARY, s.casePolicy());
    assertEquals("the cat sat", run(s, "The CAT Sat"));
    assertEquals("hello, well-known", run(s, "Hello, Well-Known"));
    assertEquals(", sat on", run(new TextSanitizer(EMB, NEXT), "The CAT Sat"));
  }

  @Test
  void restoreCopiesCapitalisedAndAllCaps() {
    TextSanitizer id = sanitizer(IDENTITY, OovPolicy.RANDOM, CasePolicy.RESTORE);
    assertEquals("The CAT Sat cat", run(id, "The CAT Sat cat"));
    assertEquals("Hello, WELL-KNOWN", run(id, "Hello, WELL-KNOWN"));
    TextSanitizer next = sanitizer(NEXT, OovPolicy.RANDOM, CasePolicy.RESTORE);
    // The→",", CAT→SAT, Sat→On, mAT→late (neither pattern), HELLO→WAS
    assertEquals(", SAT On late WAS", run(next, "The CAT Sat mAT HELLO"));
  }

  // ---------------------------------------------------------------- out of vocabulary

  @Test
  void oovRandomDrawsFromTheOutputVocabularyAndNeverEmitsTheToken() {
    int start = 3;
    TextSanitizer s = new TextSanitizer(EMB, new MapMechanism(0, Map.of(), start));
    assertEquals(OovPolicy.RANDOM, s.oovPolicy());
    Set<String> seen = new HashSet<>();
    for (int seed = 0; seed < 1000; seed++) {
      TokenCounts counts = new TokenCounts();
      String out = s.sanitize(CANARY, RandomStream.fromSeed(seed), counts);
      assertFalse(out.toLowerCase(Locale.ROOT).contains(CANARY.toLowerCase(Locale.ROOT)), out);
      int rank = EMB.indexOf(out);
      assertTrue(rank >= start && rank < EMB.size(), "not an output-vocabulary word: '" + out + "'");
      assertEquals(1, counts.tokens);
      assertEquals(1, counts.outOfVocabulary);
      assertEquals(1, counts.changed);
      seen.add(out);
    }
    assertEquals(EMB.size() - start, seen.size(), "every output word should be drawn: " + seen);
  }

  @Test
  void oovRandomInContext() {
    TextSanitizer s = new TextSanitizer(EMB, new MapMechanism(0, Map.of(), 3));
    for (int seed = 0; seed < 200; seed++) {
      String in = "the " + CANARY + " sat " + CANARY.toUpperCase(Locale.ROOT) + ", " + CANARY + "'s";
      String out = s.sanitize(in, RandomStream.fromSeed(seed), null);
      assertFalse(out.toLowerCase(Locale.ROOT).contains("zyxwvut"), out);
      assertTrue(out.startsWith("the "), out);
    }
    TextSanitizer restore =
        new TextSanitizer(EMB, new MapMechanism(0, Map.of(), 3), OovPolicy.RANDOM, "<unk>", CasePolicy.RESTORE);
    String out = run(restore, CANARY);
    assertTrue(Character.isUpperCase(out.charAt(0)), out);
    assertTrue(EMB.indexOf(out.toLowerCase(Locale.ROOT)) >= 3, out);
  }

  @Test
  void oovPlaceholder() {
    TextSanitizer s = sanitizer(IDENTITY, OovPolicy.PLACEHOLDER, CasePolicy.VOCABULARY);
    assertEquals("the <unk> cat", run(s, "the " + CANARY + " cat"));
    assertEquals("<unk>, <unk>.", run(s, CANARY + ", " + CANARY + "."));
    TextSanitizer custom = new TextSanitizer(EMB, IDENTITY, OovPolicy.PLACEHOLDER, "[X]", CasePolicy.VOCABULARY);
    assertEquals("hello [X]", run(custom, "hello " + CANARY));
    for (String bad : new String[] {"", " ", "<u nk>", "a\tb", null}) {
      ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class,
          () -> new TextSanitizer(EMB, IDENTITY, OovPolicy.PLACEHOLDER, bad, CasePolicy.VOCABULARY), bad),
          "OOV_PLACEHOLDER_INVALID", Map.of("example", "<unk>"));
    }
  }

  @Test
  void oovKeepIsVerbatim() {
    TextSanitizer s = sanitizer(NEXT, OovPolicy.KEEP, CasePolicy.VOCABULARY);
    assertEquals("sat " + CANARY + " on", run(s, "cat " + CANARY + " sat"));
    assertEquals(CANARY + "!? mat", run(s, CANARY + "!? on"));
    assertEquals("東京 مرحبا 😀", run(s, "東京 مرحبا 😀"));
  }

  // ---------------------------------------------------------------- counts

  @Test
  void tokenCounts() {
    String text = "The cat " + CANARY + " sat.";
    TokenCounts c = new TokenCounts();
    sanitizer(NEXT, OovPolicy.RANDOM, CasePolicy.VOCABULARY).sanitize(text, RandomStream.fromSeed(1), c);
    assertEquals(5, c.tokens);
    assertEquals(1, c.outOfVocabulary);
    assertEquals(5, c.changed);

    c = new TokenCounts();
    sanitizer(IDENTITY, OovPolicy.KEEP, CasePolicy.VOCABULARY).sanitize(text, RandomStream.fromSeed(1), c);
    assertEquals(5, c.tokens);
    assertEquals(1, c.outOfVocabulary);
    assertEquals(0, c.changed);

    TextSanitizer ph = sanitizer(IDENTITY, OovPolicy.PLACEHOLDER, CasePolicy.VOCABULARY);
    c = new TokenCounts();
    ph.sanitize(text, RandomStream.fromSeed(1), c);
    ph.sanitize(text, RandomStream.fromSeed(2), c); // counts accumulate
    assertEquals(10, c.tokens);
    assertEquals(2, c.outOfVocabulary);
    assertEquals(2, c.changed);

    // Only "cat" changes: the→the, cat→dog.
    c = new TokenCounts();
    sanitizer(new MapMechanism(0, Map.of(r("cat"), r("dog")), 0), OovPolicy.RANDOM, CasePolicy.VOCABULARY)
        .sanitize("the cat, the dog", RandomStream.fromSeed(1), c);
    assertEquals(5, c.tokens);
    assertEquals(1, c.changed);
    assertEquals(0, c.outOfVocabulary);

    TokenCounts sum = new TokenCounts();
    sum.add(c);
    sum.add(c);
    assertEquals(10, sum.tokens);
    assertEquals(2, sum.changed);
  }

  // ---------------------------------------------------------------- adjacency

  @Test
  void adjacentWordOutputsGetOneSpace() {
    // "." → "late" (a word), "late" → "cat": "late." gives two words that must not fuse.
    WordMechanism m = new MapMechanism(0, Map.of(r("."), r("late"), r("late"), r("cat")), 0);
    TextSanitizer s = sanitizer(m, OovPolicy.RANDOM, CasePolicy.VOCABULARY);
    assertEquals("was cat late", run(s, "was late."));
    assertEquals("cat late", run(s, "late."));
    assertEquals("cat late\n", run(s, "late.\n"));
    // "," stays "," and stays adjacent.
    assertEquals("hello,", run(s, "Hello,"));
    assertEquals("hello, cat late", run(s, "hello, late."));
    // Punctuation → word before a word.
    WordMechanism comma = new MapMechanism(0, Map.of(r(","), r("mat")), 0);
    assertEquals("mat cat", run(sanitizer(comma, OovPolicy.RANDOM, CasePolicy.VOCABULARY), ",cat"));
    // A word between two punctuation tokens that became words: two spaces, one on each side.
    assertEquals("cat late cat late", run(s, "late.late."));
  }

  @Test
  void punctuationOutputsStayAdjacent() {
    // cat → "." and "," → ",": nothing fuses, nothing is inserted.
    WordMechanism m = new MapMechanism(0, Map.of(r("cat"), r(".")), 0);
    TextSanitizer s = sanitizer(m, OovPolicy.PLACEHOLDER, CasePolicy.VOCABULARY);
    assertEquals(".,", run(s, "cat,"));
    assertEquals("hello.", run(s, "hello."));
    assertEquals("<unk>the<unk>", run(s, "(the)"));
    assertEquals("well-known", run(s, "well-known"));
  }

  @Test
  void noBreakSpacesAreWhitespace() {
    TextSanitizer s = new TextSanitizer(EMB, IDENTITY);
    for (String nbsp : new String[] {"\u00A0", "\u2007", "\u202F"}) {
      TokenCounts c = new TokenCounts();
      assertEquals("the" + nbsp + "cat", s.sanitize("the" + nbsp + "cat", RandomStream.fromSeed(1), c));
      assertEquals(2, c.tokens);
      assertEquals(0, c.outOfVocabulary);
    }
  }

  // ---------------------------------------------------------------- robustness and determinism

  @Test
  void invalidUtf16NeverThrows() {
    String[] texts = {"\uD800", "the \uD800 cat", "\uDC00\uD800", "cat\uD800.", "\uD800\uD800 x\uDFFF",
        "\uDBFF" + CANARY, "a\uD83D"};
    for (OovPolicy oov : OovPolicy.values()) {
      for (CasePolicy cp : CasePolicy.values()) {
        TextSanitizer s = sanitizer(NEXT, oov, cp);
        for (String t : texts) {
          String out = assertDoesNotThrow(() -> run(s, t), oov + " " + cp + " " + t);
          if (oov == OovPolicy.RANDOM) {
            assertFalse(out.chars().anyMatch(c -> Character.isSurrogate((char) c)), "OOV surrogates leak: " + out);
          }
        }
      }
    }
    assertEquals("\uD800 the \uDC00x", run(sanitizer(IDENTITY, OovPolicy.KEEP, CasePolicy.VOCABULARY), "\uD800 the \uDC00x"));
  }

  @Test
  void sameStreamSameOutput() {
    TextSanitizer s = new TextSanitizer(EMB, IDENTITY);
    String text = CANARY + " the " + CANARY + " " + CANARY + " cat " + CANARY;
    String a = s.sanitize(text, RandomStream.fromSeed(77), null);
    assertEquals(a, s.sanitize(text, RandomStream.fromSeed(77), null));
    boolean differs = false;
    for (int seed = 0; seed < 20 && !differs; seed++) {
      differs = !a.equals(s.sanitize(text, RandomStream.fromSeed(seed), null));
    }
    assertTrue(differs, "OOV replacements should depend on the stream");
  }

  @Test
  void javaSerializationRoundTrip() throws Exception {
    TextSanitizer s = new TextSanitizer(EMB, NEXT, OovPolicy.PLACEHOLDER, "[?]", CasePolicy.RESTORE);
    String text = "The cat, " + CANARY + " SAT";
    String before = run(s, text); // initialises the transient tokenizer
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(s);
    }
    TextSanitizer back;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      back = (TextSanitizer) in.readObject();
    }
    assertEquals(before, run(back, text));
    assertEquals(", sat. [?] ON", before);
  }

  // ---------------------------------------------------------------- real embeddings

  /**
   * A megabyte of random text (about 160,000 tokens) over the 2,000 most frequent GloVe words through
   * SanText at ε = 3: line breaks and tabs are kept, the out-of-vocabulary canaries are counted and never
   * copied, every token is counted, and the number of changed tokens matches its exact expectation
   * (each OOV token, and each vocabulary token x with probability 1 − P(x|x), P(x|x) = 1 / Σ_y
   * exp(−ε·d(x,y)/2) computed here): a z-test at α = 1e-5 (z = 4.42), false-failure rate 1e-5. About
   * 44,000 tokens change, with a standard deviation of 160: SanText at 1.05·ε, or OOV tokens not
   * counted as changed, miss by 56 and 16 standard deviations.
   *
   * <p>No timing here: a time limit measures the machine's load as much as the code. The text path's
   * throughput (tokenize, mechanism, assemble) is measured by the benchmarks module's
   * {@code dev.dptext.bench.TextPathBenchmark} ({@code scripts/bench/text-path.sh}; BENCHMARKS.md, "The text
   * path of a row, warm").
   */
  @Test
  void aMegabyteWithRealEmbeddingsKeepsLayoutAndChangesTheExpectedShare() {
    // The embedded default's 2,000 most frequent words, and the neighbour table the SanText tests share.
    Embeddings small = Fixtures.gloveTop2000();
    double epsilon = 3.0;
    SanText santext = new SanText(small, Fixtures.gloveNeighbours(0, 64), epsilon);
    TextSanitizer s = new TextSanitizer(small, santext);

    Random random = new Random(10);
    StringBuilder b = new StringBuilder(1_000_100);
    long canaries = 0;
    long newlines = 0;
    long tabs = 0;
    while (b.length() < 1_000_000) {
      int k = random.nextInt(100);
      if (k < 2) {
        b.append(CANARY);
        canaries++;
      } else {
        String w = small.word(random.nextInt(small.size()));
        b.append(k < 10 && Character.isLetter(w.charAt(0)) ? Character.toUpperCase(w.charAt(0)) + w.substring(1) : w);
      }
      if (k % 7 == 0 && Character.isLetter(b.charAt(b.length() - 1))) {
        b.append(',');
      }
      int sep = random.nextInt(20);
      if (sep == 0) {
        b.append('\n');
        newlines++;
      } else if (sep == 1) {
        b.append('\t');
        tabs++;
      } else {
        b.append(' ');
      }
    }
    String text = b.toString();
    TokenCounts counts = new TokenCounts();
    String out = s.sanitize(text, RandomStream.fromSeed(123), counts);
    assertEquals(newlines, out.chars().filter(c -> c == '\n').count());
    assertEquals(tabs, out.chars().filter(c -> c == '\t').count());
    assertEquals(canaries, counts.outOfVocabulary);
    assertFalse(out.contains(CANARY));
    TextSanitizer.Tokenized tokens = s.tokenize(text);
    assertEquals(tokens.count() + canaries, counts.tokens, "every token is counted once");
    assertTrue(counts.tokens > 100_000, "tokens: " + counts.tokens);

    // E[changed] = #OOV + Σ over vocabulary tokens of 1 − P(x|x), with P(x|x) from SanText's definition.
    // (Each pair once, Euclidean distances of the float coordinates in double.)
    int n = small.size();
    int m = small.dim();
    float[] v = small.rawVectors();
    double[] z = new double[n];
    for (int x = 0; x < n; x++) {
      z[x] += 1; // y = x
      for (int y = x + 1; y < n; y++) {
        double d2 = 0;
        for (int a = 0; a < m; a++) {
          double diff = (double) v[x * m + a] - v[y * m + a];
          d2 += diff * diff;
        }
        double w = Math.exp(-epsilon * Math.sqrt(d2) / 2);
        z[x] += w;
        z[y] += w;
      }
    }
    double[] stay = new double[n];
    for (int x = 0; x < n; x++) {
      stay[x] = 1 / z[x];
    }
    double expected = canaries;
    double variance = 0;
    for (int i = 0; i < tokens.count(); i++) {
      double p = stay[tokens.ranks()[i]];
      expected += 1 - p;
      variance += p * (1 - p);
    }
    double zScore = (counts.changed - expected) / Math.sqrt(variance);
    assertTrue(Math.abs(zScore) < 4.42, counts.changed + " tokens changed of " + counts.tokens + ", expected "
        + expected + " ± " + Math.sqrt(variance) + " (z = " + zScore + ")");
    assertTrue(expected < 0.9 * counts.tokens, "the check has power: many tokens are kept");

    // Invalid UTF-16 with the real vocabulary.
    assertDoesNotThrow(() -> s.sanitize("the \uD800 cat\uDC00, \uD800\uD800", RandomStream.fromSeed(1), null));
  }
}
