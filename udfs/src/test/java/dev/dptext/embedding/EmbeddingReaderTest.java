package dev.dptext.embedding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.errors.DpTextException;
import dev.dptext.testing.ErrorAssertions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Unit tests of {@link EmbeddingReader} and the distance functions of {@link Embeddings}. */
class EmbeddingReaderTest {

  /** Four words, three dimensions, GloVe layout. */
  private static final String GLOVE =
      "the 0.1 0.2 0.3\n"
          + "of -1 0 1.5\n"
          + "and 2.5e-1 -0.125 7\n"
          + "café 0 0 0\n";

  private static final String[] WORDS = {"the", "of", "and", "café"};
  private static final float[] VECTORS = {
    0.1f, 0.2f, 0.3f, -1f, 0f, 1.5f, 0.25f, -0.125f, 7f, 0f, 0f, 0f
  };

  @TempDir Path dir;

  private Path write(String name, String content) throws IOException {
    return write(name, content.getBytes(StandardCharsets.UTF_8));
  }

  private Path write(String name, byte[] content) throws IOException {
    Path file = dir.resolve(name);
    if (name.endsWith(".gz")) {
      try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
        out.write(content);
      }
    } else {
      Files.write(file, content);
    }
    return file;
  }

  private static void assertExpected(Embeddings e) {
    assertEquals(4, e.size());
    assertEquals(3, e.dim());
    assertArrayEquals(WORDS, e.rawWords());
    assertArrayEquals(VECTORS, e.rawVectors());
    for (int i = 0; i < WORDS.length; i++) {
      assertEquals(i, e.indexOf(WORDS[i]));
      assertEquals(WORDS[i], e.word(i));
    }
    assertEquals(-1, e.indexOf("missing"));
    assertEquals(-1, e.indexOf("The"), "the embeddings themselves are case-sensitive");
  }

  // ---------------------------------------------------------------- formats

  @Test
  void readsGloveText() throws IOException {
    assertExpected(EmbeddingReader.all().read(write("glove.txt", GLOVE)));
  }

  @Test
  void readsVecWithHeader() throws IOException {
    assertExpected(EmbeddingReader.all().read(write("wiki.vec", "4 3\n" + GLOVE)));
  }

  @Test
  void readsFastTextStyleTrailingSpacesAndCrLf() throws IOException {
    String body = "4 3 \r\n" + GLOVE.replace("\n", " \r\n");
    assertExpected(EmbeddingReader.all().read(write("crlf.vec", body)));
  }

  @Test
  void skipsBlankLines() throws IOException {
    assertExpected(EmbeddingReader.all().read(write("blank.txt", GLOVE.replace("of ", "\n\nof ") + "\n\n")));
  }

  @Test
  void readsGzipByExtension() throws IOException {
    assertExpected(EmbeddingReader.all().read(write("glove.txt.gz", GLOVE)));
    assertExpected(EmbeddingReader.all().read(write("wiki.vec.gz", "4 3\n" + GLOVE)));
  }

  @Test
  void readsFromStreamWithGivenName() throws IOException {
    Embeddings e =
        EmbeddingReader.all()
            .read(new ByteArrayInputStream(GLOVE.getBytes(StandardCharsets.UTF_8)), "stream-name");
    assertExpected(e);
  }

  @Test
  void topKeepsTheFirstWords() throws IOException {
    Path file = write("glove.txt", GLOVE);
    Embeddings two = EmbeddingReader.top(2).read(file);
    assertArrayEquals(new String[] {"the", "of"}, two.rawWords());
    assertArrayEquals(java.util.Arrays.copyOf(VECTORS, 6), two.rawVectors());
    Embeddings one = EmbeddingReader.top(1).read(write("wiki.vec", "4 3\n" + GLOVE));
    assertArrayEquals(new String[] {"the"}, one.rawWords());
    // More than the file holds: every word.
    assertExpected(EmbeddingReader.top(100).read(file));
    assertThrows(IllegalStateException.class, () -> EmbeddingReader.top(0)); // callers pass vocabSize > 0
  }

  @Test
  void topDoesNotReadPastTheLimit() throws IOException {
    // A defect after the N-th word does not matter when only N words are wanted.
    Path file = write("tail.txt", GLOVE + "broken 1 2\n");
    assertEquals(4, EmbeddingReader.top(4).read(file).size());
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class, () -> EmbeddingReader.all().read(file)),
        "EMBEDDING_FILE_MALFORMED");
  }

  @Test
  void topWordsIsAPrefix() throws IOException {
    Embeddings e = EmbeddingReader.all().read(write("glove.txt", GLOVE));
    Embeddings t = e.topWords(3);
    assertArrayEquals(new String[] {"the", "of", "and"}, t.rawWords());
    assertArrayEquals(java.util.Arrays.copyOf(VECTORS, 9), t.rawVectors());
    assertSame(e, e.topWords(4));
    assertThrows(IllegalStateException.class, () -> e.topWords(0)); // callers keep 0 < n <= |V|
    assertThrows(IllegalStateException.class, () -> e.topWords(5));
  }

  // ---------------------------------------------------------------- errors

  /**
   * Reads {@code file}, expecting a catalogued error naming the file, and, for a line &gt; 0, the
   * EMBEDDING_FILE_MALFORMED of that line; every fragment is in its message (the problem's words).
   */
  private static DpTextException assertError(Path file, int line, String... fragments) {
    DpTextException e = assertThrows(DpTextException.class, () -> EmbeddingReader.all().read(file));
    assertEquals(file.toString(), e.parameters().get("path"), e.getMessage());
    if (line > 0) {
      ErrorAssertions.assertError(e, "EMBEDDING_FILE_MALFORMED");
      assertEquals(String.valueOf(line), e.parameters().get("line"), e.getMessage());
    }
    String msg = e.getMessage();
    for (String f : fragments) {
      assertTrue(msg.contains(f), "message should contain '" + f + "': " + msg);
    }
    return e;
  }

  @Test
  void malformedNumber() throws IOException {
    assertError(write("bad.txt", "the 0.1 0.2 0.3\nof 0.1 abc 0.3\n"), 2, "'abc'", "not a number");
    assertError(write("comma.txt", "the 0.1 0.2 0.3\nof 0.1 0.2 0.3\nand 0,5 1 2\n"), 3, "'0,5'");
    // Two spaces make an empty value.
    assertError(write("double-space.txt", "the 0.1  0.2\n"), 1, "not a number");
    // In a .gz file too.
    assertError(write("bad.txt.gz", "the 0.1 0.2 0.3\nof 0.1 0.2 x\n"), 2, "'x'");
  }

  @Test
  void inconsistentDimension() throws IOException {
    assertError(
        write("short.txt", GLOVE + "truncated 0.1 0.2\n"), 5, "expected 3 values", "found 2");
    assertError(write("long.txt", "the 1 2\nof 1 2 3\n"), 2, "expected 2 values", "found 3");
    // The header fixes the dimension for the first word too.
    assertError(write("hdr.vec", "2 4\nthe 1 2 3\nof 1 2 3 4\n"), 2, "expected 4 values", "found 3");
    assertError(write("noval.txt", "lonely\n"), 1, "without values");
  }

  @Test
  void duplicateWordNamesBothLines() throws IOException {
    assertError(
        write("dup.txt", GLOVE + "of 1 2 3\n"), 5, "duplicate word 'of'", "first defined at line 2");
    // With a header line the numbering still counts physical lines.
    assertError(
        write("dup.vec", "3 3\nthe 1 2 3\nx 1 2 3\nthe 4 5 6\n"), 4, "'the'", "first defined at line 2");
  }

  @Test
  void nanAndInfinityRejected() throws IOException {
    assertError(write("nan.txt", "the 1 2\nof NaN 2\n"), 2, "NaN", "finite");
    assertError(write("inf.txt", "the 1 2\nof 1 2\nand 1 Infinity\n"), 3, "Infinity", "finite");
    assertError(write("neginf.txt", "the -Infinity 2\n"), 1, "finite");
    // A float overflow is infinite too.
    assertError(write("overflow.txt", "the 1 2\nof 1e39 2\n"), 2, "finite");
  }

  @Test
  void headerCountDisagreeingWithBodyIsAnError() throws IOException {
    assertError(write("few.vec", "5 3\n" + GLOVE), 0, "declares 5 words", "has 4");
    assertError(write("many.vec", "3 3\n" + GLOVE), 0, "declares 3 words", "has 4");
    assertError(write("zero-dim.vec", "4 0\n" + GLOVE), 1, "dimension 0");
  }

  @Test
  void headerCountMismatchNamesTheHeaderLine() throws IOException {
    assertError(write("few.vec", "5 3\n" + GLOVE), 1, "declares 5 words");
  }

  /** GLOVE with "and" spelled "an\xFFd" on line 3 (0xFF never occurs in UTF-8). */
  private static byte[] withInvalidUtf8OnLine3() {
    ByteArrayOutputStream r = new ByteArrayOutputStream();
    r.writeBytes("the 0.1 0.2 0.3\nof -1 0 1.5\nan".getBytes(StandardCharsets.UTF_8));
    r.write(0xFF);
    r.writeBytes("d 1 2 3\ncafe 0 0 0\n".getBytes(StandardCharsets.UTF_8));
    return r.toByteArray();
  }

  @Test
  void invalidUtf8IsAnError() throws IOException {
    assertError(write("latin1.txt", withInvalidUtf8OnLine3()), 0, "not valid UTF-8");
    assertError(write("latin1.txt.gz", withInvalidUtf8OnLine3()), 0, "not valid UTF-8");
    // On the first line the line number is right.
    byte[] first = {'c', 'a', 'f', (byte) 0xE9, ' ', '1', '\n'}; // ISO-8859-1 "café 1"
    assertError(write("first.txt", first), 1, "not valid UTF-8");
    // A truncated multi-byte sequence at the end of the file.
    byte[] cut = {'t', 'h', 'e', ' ', '1', '\n', 'x', (byte) 0xE2, (byte) 0x82};
    assertError(write("cut.txt", cut), 0, "not valid UTF-8");
  }

  @Test
  void invalidUtf8NamesTheRightLine() throws IOException {
    assertError(write("latin1.txt", withInvalidUtf8OnLine3()), 3, "not valid UTF-8");
  }

  @Test
  void emptyFileIsAnError() throws IOException {
    for (Path file : List.of(write("empty.txt", ""), write("blank.txt", "\n\n  \n"), write("header-only.vec", "0 3\n"),
        write("empty.txt.gz", ""))) {
      ErrorAssertions.assertError(assertError(file, 0), "EMBEDDING_FILE_EMPTY", Map.of("path", file));
    }
  }

  @Test
  void missingFileIsAnError() {
    Path missing = dir.resolve("no-such-dir").resolve("glove.txt");
    ErrorAssertions.assertError(assertError(missing, 0), "EMBEDDING_FILE_NOT_FOUND", Map.of("path", missing));
  }

  @Test
  void notGzipDataInAGzFileIsAnError() throws IOException {
    Path file = dir.resolve("plain.txt.gz");
    Files.writeString(file, GLOVE);
    ErrorAssertions.assertError(assertError(file, 0), "EMBEDDING_FILE_UNREADABLE");
  }

  // ---------------------------------------------------------------- distances

  private static Embeddings random(int n, int dim, long seed) {
    Random r = new Random(seed);
    String[] words = new String[n];
    float[] v = new float[n * dim];
    for (int i = 0; i < n; i++) {
      words[i] = "w" + i;
    }
    for (int k = 0; k < v.length; k++) {
      v[k] = (float) (r.nextGaussian() * (1 + (k % 7)));
    }
    return new Embeddings(words, v, dim);
  }

  private static double naiveSquared(Embeddings e, int i, int j) {
    float[] v = e.rawVectors();
    int dim = e.dim();
    double s = 0;
    for (int k = 0; k < dim; k++) {
      double d = (double) v[i * dim + k] - (double) v[j * dim + k];
      s += d * d;
    }
    return s;
  }

  @Test
  void distanceMatchesStraightforwardComputation() {
    for (int dim : new int[] {1, 2, 3, 4, 5, 7, 8, 25, 100, 301}) {
      Embeddings e = random(40, dim, dim);
      for (int i = 0; i < e.size(); i++) {
        assertEquals(0.0, e.distance(i, i));
        for (int j = 0; j < e.size(); j++) {
          double expected = Math.sqrt(naiveSquared(e, i, j));
          double actual = e.distance(i, j);
          assertEquals(expected, actual, 1e-12 * Math.max(1, expected), "dim " + dim + " " + i + "," + j);
          assertEquals(actual, e.distance(j, i), "distance must be exactly symmetric");
          assertEquals(
              Embeddings.squaredDistance(e.rawVectors(), i * dim, e.rawVectors(), j * dim, dim),
              actual * actual, 1e-9 * Math.max(1, actual * actual));
        }
      }
    }
  }

  @Test
  void distanceOfKnownVectors() throws IOException {
    Embeddings e = EmbeddingReader.all().read(write("glove.txt", GLOVE));
    // the (0.1,0.2,0.3) and café (0,0,0)
    assertEquals(Math.sqrt(0.1f * (double) 0.1f + 0.2f * (double) 0.2f + 0.3f * (double) 0.3f), e.distance(0, 3), 1e-15);
    // of (-1,0,1.5) and and (0.25,-0.125,7): sqrt(1.5625 + 0.015625 + 30.25)
    assertEquals(Math.sqrt(31.828125), e.distance(1, 2), 1e-15);
  }

  @Test
  void squaredDistanceBelowIsExactBelowTheLimitAndAtLeastTheLimitOtherwise() {
    Random r = new Random(42);
    for (int dim : new int[] {1, 3, 4, 5, 24, 25, 27, 28, 29, 50, 100, 101, 300}) {
      Embeddings e = random(30, dim, 1000 + dim);
      for (int i = 0; i < e.size(); i++) {
        for (int j = 0; j < e.size(); j++) {
          double exact =
              Embeddings.squaredDistance(e.rawVectors(), i * dim, e.rawVectors(), j * dim, dim);
          double[] limits = {
            0.0, Double.MIN_VALUE, exact * 0.01, exact * 0.5, exact * 0.999, Math.nextDown(exact), exact,
            Math.nextUp(exact), exact * 1.001, exact * 2, 1e300, Double.POSITIVE_INFINITY,
            r.nextDouble() * exact, r.nextDouble() * 2 * exact, r.nextDouble() * 4 * exact
          };
          for (double limit : limits) {
            double got = e.squaredDistanceBelow(i, j, limit);
            if (exact < limit) {
              assertEquals(exact, got, "dim " + dim + " pair " + i + "," + j + " limit " + limit);
            } else {
              assertTrue(got >= limit, "dim " + dim + " pair " + i + "," + j + ": " + got + " < limit " + limit);
              assertTrue(got <= exact, "a partial sum never exceeds the full sum");
            }
          }
        }
      }
    }
  }

  @Test
  void constructorValidates() {
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class,
        () -> new Embeddings(new String[] {"a"}, new float[] {1}, 0)), "EMBEDDINGS_INVALID");
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class,
        () -> new Embeddings(new String[0], new float[0], 1)), "EMBEDDINGS_INVALID");
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class,
        () -> new Embeddings(new String[] {"a"}, new float[] {1, 2, 3}, 2)), "EMBEDDINGS_INVALID");
    IllegalArgumentException dup =
        assertThrows(
            IllegalArgumentException.class,
            () -> new Embeddings(new String[] {"a", "b", "a"}, new float[3], 1));
    ErrorAssertions.assertError(dup, "EMBEDDINGS_INVALID");
  }

  @Test
  void javaSerializationRebuildsTheIndex() throws Exception {
    Embeddings e = random(20, 5, 7);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(e);
    }
    Embeddings back;
    try (java.io.ObjectInputStream in =
        new java.io.ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      back = (Embeddings) in.readObject();
    }
    assertArrayEquals(e.rawWords(), back.rawWords());
    assertArrayEquals(e.rawVectors(), back.rawVectors());
    assertEquals(7, back.indexOf("w7"));
    assertEquals(e.distance(3, 9), back.distance(3, 9));
  }
}
