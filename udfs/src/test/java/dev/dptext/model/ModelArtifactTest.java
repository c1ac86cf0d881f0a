package dev.dptext.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reading model files of format version 1 (written by {@link V1Writer}, as dptext wrote them before version
 * 2), the version dispatch, and the embedded default; version 2 itself is {@link ModelFileV2Test}'s.
 */
class ModelArtifactTest {
  private static final String NAME = "models/unit-test.dptext";
  private static final int N = 300;
  private static final int DIM = 8;

  private static Embeddings emb;
  private static DpTextModel model;
  private static byte[] bytes;

  @BeforeAll
  static void build() throws IOException {
    emb = randomEmbeddings(N, DIM, 4242);
    model = DpTextModel.of(emb, "test", 16);
    model.neighbours(0);
    model.neighbours(N - 10); // 10 targets < K: a table whose outside bounds are +∞
    model.covariance();
    bytes = V1Writer.write(model);
  }

  private static Embeddings randomEmbeddings(int n, int dim, long seed) {
    Random r = new Random(seed);
    String[] words = new String[n];
    float[] v = new float[n * dim];
    for (int i = 0; i < n; i++) {
      words[i] = i % 17 == 0 ? "wörd-" + i + "-東京" : "w" + i;
    }
    for (int k = 0; k < v.length; k++) {
      v[k] = (float) r.nextGaussian();
    }
    return new Embeddings(words, v, dim);
  }

  private static byte[] write(DpTextModel m) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ModelArtifact.write(m, out);
    return out.toByteArray();
  }

  private static DpTextModel read(byte[] b) throws IOException {
    return ModelArtifact.read(new ByteArrayInputStream(b), NAME);
  }

  /** Offset of the first vector byte, from version 1's layout. */
  private static int vectorsOffset() {
    int off = 12 + 4 + 4;
    for (Map.Entry<String, String> e : model.metadata().entrySet()) {
      off += 2 + utfLength(e.getKey()) + 2 + utfLength(e.getValue());
    }
    off += 2 + 64 + 4 + 4 + 4 + 1; // hash, |V|, m, K, tiered-rows flag
    for (String w : emb.rawWords()) {
      off += 2 + utfLength(w);
    }
    return off;
  }

  /** Length of a string in Java's modified UTF-8 (same as UTF-8 for these words: no NUL, BMP only). */
  private static int utfLength(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  private static IllegalArgumentException assertBad(byte[] b, String... fragments) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(b));
    assertTrue(e.getMessage().contains(NAME), "message should name the file: " + e.getMessage());
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), "message should contain '" + f + "': " + e.getMessage());
    }
    return e;
  }

  @Test
  void versionOneReads() throws IOException {
    assertEquals(1, ByteBuffer.wrap(bytes).getInt(12), "a version 1 file: big-endian 1 after the magic");
    DpTextModel back = read(bytes);
    assertArrayEquals(emb.rawWords(), back.embeddings().rawWords());
    assertArrayEquals(emb.rawVectors(), back.embeddings().rawVectors());
    assertEquals(DIM, back.embeddings().dim());
    assertEquals(model.hash(), back.hash());
    assertEquals(64, back.hash().length());
    assertEquals(16, back.neighbourCount());
    assertEquals(model.metadata(), back.metadata());
    assertEquals("test", back.metadata().get("source"));
    assertEquals(model.tables().keySet(), back.tables().keySet());
    assertEquals(2, back.tables().size());
    for (Map.Entry<Integer, NeighbourTable> e : model.tables().entrySet()) {
      NeighbourTable a = e.getValue();
      NeighbourTable b = back.tables().get(e.getKey());
      assertEquals(a.targetStart(), b.targetStart());
      assertEquals(a.k(), b.k());
      assertArrayEquals(a.rawNeighbours(), b.rawNeighbours());
      assertArrayEquals(a.rawOutsideBounds(), b.rawOutsideBounds());
    }
    assertTrue(back.hasNeighbours(0));
    assertTrue(back.hasNeighbours(N - 10));
    assertFalse(back.hasNeighbours(1));
    assertEquals(Double.POSITIVE_INFINITY, back.tables().get(N - 10).outsideBound(0));
    assertEquals(17, back.embeddings().indexOf("wörd-17-東京"));
    assertTrue(back.hasCovariance());
    assertArrayEquals(model.covariance().sigma(), back.covariance().sigma());
    // Written again, it is version 2, byte for byte what the original model writes.
    byte[] again = write(back);
    assertEquals(2, ByteBuffer.wrap(again).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(12));
    assertArrayEquals(write(model), again);
  }

  @Test
  void roundTripWithoutTables() throws IOException {
    DpTextModel bare = DpTextModel.of(emb, "bare", 8);
    DpTextModel back = read(write(bare));
    assertTrue(back.tables().isEmpty());
    assertEquals(bare.hash(), back.hash());
    assertEquals(8, back.neighbourCount());
  }

  @Test
  void hashIdentifiesTheEmbeddings() {
    assertEquals(model.hash(), DpTextModel.of(randomEmbeddings(N, DIM, 4242), "other", 3).hash());
    float[] v = emb.rawVectors().clone();
    v[v.length - 1] = Math.nextUp(v[v.length - 1]);
    assertNotEquals(model.hash(), DpTextModel.of(new Embeddings(emb.rawWords(), v, DIM), "t", 16).hash());
    String[] w = emb.rawWords().clone();
    String t = w[1];
    w[1] = w[2];
    w[2] = t;
    assertNotEquals(model.hash(), DpTextModel.of(new Embeddings(w, emb.rawVectors(), DIM), "t", 16).hash());
  }

  @Test
  void truncatedArtifactIsAnError() {
    int len = bytes.length;
    int[] cuts = {0, 1, 11, 12, 15, 16, 20, vectorsOffset() - 1, vectorsOffset(), vectorsOffset() + 5, len - 8, len - 1};
    for (int cut : cuts) {
      assertBad(Arrays.copyOf(bytes, cut), "truncated");
    }
    for (int cut = 0; cut < len; cut += len / 53) {
      assertBad(Arrays.copyOf(bytes, cut));
    }
  }

  @Test
  void flippedVectorByteIsReportedAsCorrupted() {
    int off = vectorsOffset();
    for (int at : new int[] {off, off + 1, off + 4 * N * DIM / 2 + 3, off + 4 * N * DIM - 1}) {
      byte[] b = bytes.clone();
      b[at] ^= 0x01;
      assertBad(b, "corrupted");
    }
  }

  @Test
  void vectorsOffsetIsRight() {
    // Guard for the test above: the bytes at the computed offset are the first vector's floats.
    ByteBuffer bb = ByteBuffer.wrap(bytes, vectorsOffset(), 8);
    assertEquals(emb.rawVectors()[0], bb.getFloat());
    assertEquals(emb.rawVectors()[1], bb.getFloat());
  }

  @Test
  void wrongMagicIsAnError() {
    byte[] b = bytes.clone();
    b[0] = 'X';
    assertBad(b, "not a dptext model");
    assertBad("PK\u0003\u0004 definitely a zip file, not a model".getBytes(StandardCharsets.ISO_8859_1), "not a dptext model");
  }

  @Test
  void wrongVersionIsAnError() {
    byte[] b = bytes.clone();
    ByteBuffer.wrap(b).putInt(12, 3); // big-endian 3
    assertBad(b, "version 3", "reads versions 1 and 2");
    ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(12, 3); // little-endian 3
    assertBad(b, "version 3");
    ByteBuffer.wrap(b).putInt(12, 0);
    assertBad(b, "version 0");
    ByteBuffer.wrap(b).putInt(12, 2); // big-endian 2: neither version 1 nor version 2's little-endian 2
    assertBad(b, "version 2");
    assertEquals(2, DpTextModel.FORMAT_VERSION);
  }

  @Test
  void corruptedWordIsAnErrorNamingTheFile() {
    int wordStart = vectorsOffset() - 2 - utfLength(emb.word(N - 1)); // length prefix of the last word
    byte[] b = bytes.clone();
    b[wordStart + 2] = (byte) 0xFF; // never valid in (modified) UTF-8
    assertBad(b);
  }

  @Test
  void corruptedSizeFieldsAreErrorsNamingTheFile() {
    int sizeAt = 12 + 4 + 4 + 2 + 6 + 2 + 4 + 2 + 64; // after magic, version, metadata {source=test}, hash
    assertEquals(N, ByteBuffer.wrap(bytes).getInt(sizeAt), "layout guard");
    assertEquals(DIM, ByteBuffer.wrap(bytes).getInt(sizeAt + 4), "layout guard");
    for (int[] flip : new int[][] {{0, 0x80}, {4, 0x80}, {4, 0x40}, {8, 0x80}}) {
      byte[] b = bytes.clone();
      b[sizeAt + flip[0]] = (byte) flip[1]; // |V| < 0; m < 0; |V|·m overflows; K < 0
      assertBad(b);
    }
  }

  // ---------------------------------------------------------------- embedded default

  @Test
  void embeddedDefaultLoads() {
    Embeddings e = EmbeddedDefault.embeddings();
    assertEquals(25_000, e.size());
    assertEquals(100, e.dim());
    assertEquals(25_000 * 100, e.rawVectors().length);
    assertEquals("the", e.word(0));
    assertEquals(",", e.word(1));
    assertEquals(".", e.word(2));
    assertEquals(0, e.indexOf("the"));
    // As its README says: no single letters, no clitics.
    assertEquals(-1, e.indexOf("a"));
    assertEquals(-1, e.indexOf("'s"));
    assertEquals(-1, e.indexOf("n't"));
    for (float f : e.rawVectors()) {
      assertTrue(Float.isFinite(f));
    }
    assertTrue(e.distance(e.indexOf("king"), e.indexOf("queen")) < e.distance(e.indexOf("king"), e.indexOf("banana")));
  }

  @Test
  void embeddedDefaultFileMatchesItsReadme() throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    long size = 0;
    try (InputStream in = EmbeddedDefault.class.getResourceAsStream(EmbeddedDefault.RESOURCE)) {
      byte[] buf = new byte[1 << 16];
      int n;
      while ((n = in.read(buf)) > 0) {
        sha.update(buf, 0, n);
        size += n;
      }
    }
    assertEquals(5_200_153, size);
    assertEquals(
        "6ead9e2942ced2f5ee403706c4f88b92ff5f7e5eff47b74f247afae3398fd0f8",
        HexFormat.of().formatHex(sha.digest()));
  }
}
