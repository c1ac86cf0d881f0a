package dev.dptext.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import dev.dptext.testing.ErrorAssertions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Model file format version 2 against its specification, {@code docs/model-format.md}: the layout, the
 * header (parsed here with Jackson, independently of the reader's own parser), the arrays' bytes, and the
 * reader's checks. Files "from another writer" are made by re-laying out a written file's arrays under a
 * header Jackson writes.
 */
class ModelFileV2Test {
  private static final String NAME = "models/unit-test-v2.dptext-model";
  private static final int N = 300;
  private static final int DIM = 8;
  private static final int K = 16;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static DpTextModel model;
  private static byte[] bytes;
  private static ObjectNode header;
  private static int dataStart;

  @BeforeAll
  static void build() throws IOException {
    Random r = new Random(4242);
    String[] words = new String[N];
    float[] v = new float[N * DIM];
    for (int i = 0; i < N; i++) {
      // Multi-byte UTF-8, a supplementary character (4 bytes in UTF-8, 6 in version 1's modified UTF-8).
      words[i] = i % 17 == 0 ? "wörd-" + i + "-東京" : i == 5 ? "emoji-\uD83D\uDE00" : "w" + i;
    }
    for (int k = 0; k < v.length; k++) {
      v[k] = (float) r.nextGaussian();
    }
    model = DpTextModel.of(new Embeddings(words, v, DIM), "test \"quoted\"\n\\ source", K);
    model.neighbours(0);
    model.neighbours(N - 10); // 10 targets < K: a table whose outside bounds are +∞
    model.covariance();
    bytes = write(model);
    long h = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(16);
    dataStart = Math.toIntExact(24 + h);
    header = (ObjectNode) JSON.readTree(new String(bytes, 24, (int) h, StandardCharsets.UTF_8));
  }

  static byte[] write(DpTextModel m) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ModelArtifact.write(m, out);
    return out.toByteArray();
  }

  static DpTextModel read(byte[] b) throws IOException {
    return ModelArtifact.read(new ByteArrayInputStream(b), NAME);
  }

  private static IllegalArgumentException assertBad(byte[] b, String... fragments) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(b));
    // A catalogued model error (MODEL_CORRUPTED, MODEL_TRUNCATED, ...) that names the file.
    assertTrue(e instanceof dev.dptext.errors.DpTextException d && d.errorClass().startsWith("MODEL_")
        && NAME.equals(d.parameters().get("model")), "should name the file: " + e.getMessage());
    assertFalse(e.getMessage().contains("wörd") || e.getMessage().contains("東京"), "no content: " + e.getMessage());
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), "message should contain '" + f + "': " + e.getMessage());
    }
    return e;
  }

  /** Every field of two models equal. */
  static void assertSameModel(DpTextModel expected, DpTextModel actual) {
    assertArrayEquals(expected.embeddings().rawWords(), actual.embeddings().rawWords());
    assertArrayEquals(expected.embeddings().rawVectors(), actual.embeddings().rawVectors());
    assertEquals(expected.embeddings().dim(), actual.embeddings().dim());
    assertEquals(expected.hash(), actual.hash());
    assertEquals(expected.rowLengths(), actual.rowLengths());
    assertEquals(List.copyOf(expected.metadata().entrySet()), List.copyOf(actual.metadata().entrySet()),
        "metadata, in order");
    assertEquals(expected.tables().keySet(), actual.tables().keySet());
    for (Map.Entry<Integer, NeighbourTable> e : expected.tables().entrySet()) {
      NeighbourTable a = e.getValue();
      NeighbourTable b = actual.tables().get(e.getKey());
      assertEquals(a.targetStart(), b.targetStart());
      assertArrayEquals(a.rawOffsets(), b.rawOffsets());
      assertArrayEquals(a.rawNeighbours(), b.rawNeighbours());
      assertArrayEquals(a.rawOutsideBounds(), b.rawOutsideBounds());
    }
    assertEquals(expected.hasCovariance(), actual.hasCovariance());
    if (expected.hasCovariance()) {
      assertArrayEquals(expected.covariance().sigma(), actual.covariance().sigma());
    }
  }

  @Test
  void roundTripKeepsEveryField() throws IOException {
    DpTextModel back = read(bytes);
    assertSameModel(model, back);
    assertEquals(2, back.tables().size());
    assertTrue(back.hasCovariance());
    assertEquals(Double.POSITIVE_INFINITY, back.tables().get(N - 10).outsideBound(0));
    assertEquals(17, back.embeddings().indexOf("wörd-17-東京"));
    assertEquals(5, back.embeddings().indexOf("emoji-\uD83D\uDE00"));
    assertEquals("test \"quoted\"\n\\ source", back.metadata().get("source"));
    assertArrayEquals(bytes, write(back), "written again: the same bytes");
  }

  @Test
  void aModelWithoutTablesOrCovariance() throws IOException {
    DpTextModel bare = DpTextModel.of(model.embeddings(), "bare", RowLengths.uniform(8));
    byte[] b = write(bare);
    DpTextModel back = read(b);
    assertSameModel(bare, back);
    assertTrue(back.tables().isEmpty());
    assertFalse(back.hasCovariance());
    JsonNode h = headerOf(b);
    assertEquals(0, h.get("tables").size());
    assertTrue(h.get("covariance").isNull());
    assertEquals(3, h.get("arrays").size());
    assertFalse(h.get("tieredRows").asBoolean());
  }

  @Test
  void firstTwentyFourBytes() {
    // "DPTEXT-MODEL", 2 as uint32 LE, then H = 2344 as uint64 LE (this model's header, padded: 24 + H = 37·64).
    assertEquals("4450544558542d4d4f44454c" + "02000000" + "2809000000000000",
        HexFormat.of().formatHex(bytes, 0, 24));
  }

  @Test
  void headerIsPaddedJsonEndingAtAMultipleOf64() {
    long h = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(16);
    assertEquals(0, (24 + h) % 64);
    String text = new String(bytes, 24, (int) h, StandardCharsets.UTF_8);
    int end = text.lastIndexOf('}') + 1;
    assertTrue(text.substring(end).matches("\n *"), "after the JSON: a newline, then spaces only");
    assertTrue(text.length() - end <= 64, "padded by less than 64 bytes (plus the newline)");
  }

  @Test
  void headerFieldsAreTheSpecs() {
    assertEquals("dptext-model", header.get("format").asText());
    assertTrue(header.get("version").isInt());
    assertEquals(2, header.get("version").asInt());
    assertEquals(model.metadata(), JSON.convertValue(header.get("metadata"), Map.class));
    assertEquals(model.hash(), header.get("embeddingsSha256").asText());
    assertEquals(N, header.get("vocabularySize").asInt());
    assertEquals(DIM, header.get("dimension").asInt());
    assertEquals(K, header.get("neighbourCount").asInt());
    assertTrue(header.get("tieredRows").asBoolean());
    ArrayNode tables = (ArrayNode) header.get("tables");
    assertEquals(2, tables.size());
    int i = 0;
    for (int start : new int[] {0, N - 10}) {
      JsonNode t = tables.get(i++);
      assertEquals(start, t.get("targetStart").asInt());
      assertEquals("table." + start + ".offsets", t.get("offsets").asText());
      assertEquals("table." + start + ".neighbours", t.get("neighbours").asText());
      assertEquals("table." + start + ".outsideBounds", t.get("outsideBounds").asText());
    }
    assertEquals("covariance", header.get("covariance").asText());
  }

  @Test
  void arraysAreWhereAndWhatTheHeaderSays() throws Exception {
    JsonNode arrays = header.get("arrays");
    List<String> names = new ArrayList<>();
    arrays.fieldNames().forEachRemaining(names::add);
    long e0 = model.tables().get(0).rawNeighbours().length;
    long e1 = model.tables().get(N - 10).rawNeighbours().length;
    byte[] utf8 = String.join("", model.embeddings().rawWords()).getBytes(StandardCharsets.UTF_8);
    Map<String, Object[]> expected = new LinkedHashMap<>(); // name → dtype, shape
    expected.put("words.offsets", new Object[] {"<i8", List.of(N + 1L)});
    expected.put("words.utf8", new Object[] {"|u1", List.of((long) utf8.length)});
    expected.put("vectors", new Object[] {"<f4", List.of((long) N, (long) DIM)});
    expected.put("table.0.offsets", new Object[] {"<i4", List.of(N + 1L)});
    expected.put("table.0.neighbours", new Object[] {"<i4", List.of(e0)});
    expected.put("table.0.outsideBounds", new Object[] {"<f8", List.of((long) N)});
    expected.put("table.290.offsets", new Object[] {"<i4", List.of(N + 1L)});
    expected.put("table.290.neighbours", new Object[] {"<i4", List.of(e1)});
    expected.put("table.290.outsideBounds", new Object[] {"<f8", List.of((long) N)});
    expected.put("covariance", new Object[] {"<f8", List.of((long) DIM, (long) DIM)});
    assertEquals(List.copyOf(expected.keySet()), names, "the arrays, in the writer's order");
    long next = 0;
    for (Map.Entry<String, Object[]> e : expected.entrySet()) {
      JsonNode a = arrays.get(e.getKey());
      assertEquals(e.getValue()[0], a.get("dtype").asText(), e.getKey());
      List<Long> shape = new ArrayList<>();
      a.get("shape").forEach(x -> shape.add(x.asLong()));
      assertEquals(e.getValue()[1], shape, e.getKey());
      long items = shape.stream().reduce(1L, (x, y) -> x * y);
      int itemSize = Integer.parseInt(a.get("dtype").asText().substring(2));
      assertEquals(items * itemSize, a.get("bytes").asLong(), e.getKey() + ": bytes = product of shape × item size");
      long offset = a.get("offset").asLong();
      assertEquals(0, offset % 64, e.getKey() + " is 64-byte aligned");
      assertEquals(0, (dataStart + offset) % 64, e.getKey() + " is 64-byte aligned in the file");
      assertEquals(next, offset, e.getKey() + " follows the array before it at the next multiple of 64");
      for (long p = dataStart + next; p < dataStart + offset; p++) {
        assertEquals(0, bytes[(int) p], "zero bytes between arrays");
      }
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(bytes, (int) (dataStart + offset), (int) a.get("bytes").asLong());
      assertEquals(HexFormat.of().formatHex(md.digest()), a.get("sha256").asText(), e.getKey() + "'s SHA-256");
      next = (offset + a.get("bytes").asLong() + 63) / 64 * 64;
    }
    JsonNode last = arrays.get("covariance");
    assertEquals(bytes.length, dataStart + last.get("offset").asLong() + last.get("bytes").asLong(),
        "the file ends with the last array");

    // The values, little-endian.
    long[] offsets = new long[N + 1];
    array("words.offsets").asLongBuffer().get(offsets);
    assertEquals(0, offsets[0]);
    assertEquals(utf8.length, offsets[N]);
    byte[] stored = new byte[utf8.length];
    array("words.utf8").get(stored);
    assertArrayEquals(utf8, stored, "standard UTF-8, concatenated");
    for (int i = 0; i < N; i++) {
      assertEquals(model.embeddings().word(i),
          new String(stored, (int) offsets[i], (int) (offsets[i + 1] - offsets[i]), StandardCharsets.UTF_8));
    }
    float[] vectors = new float[N * DIM];
    array("vectors").asFloatBuffer().get(vectors);
    assertArrayEquals(model.embeddings().rawVectors(), vectors, "row-major");
    for (int start : new int[] {0, N - 10}) {
      NeighbourTable t = model.tables().get(start);
      int[] o = new int[N + 1];
      array("table." + start + ".offsets").asIntBuffer().get(o);
      assertArrayEquals(t.rawOffsets(), o);
      int[] nb = new int[t.rawNeighbours().length];
      array("table." + start + ".neighbours").asIntBuffer().get(nb);
      assertArrayEquals(t.rawNeighbours(), nb);
      double[] bounds = new double[N];
      array("table." + start + ".outsideBounds").asDoubleBuffer().get(bounds);
      assertArrayEquals(t.rawOutsideBounds(), bounds);
    }
    double[] sigma = new double[DIM * DIM];
    array("covariance").asDoubleBuffer().get(sigma);
    assertArrayEquals(model.covariance().sigma(), sigma, "row-major");
  }

  /** The bytes of array {@code name} of {@link #bytes}, little-endian. */
  private static ByteBuffer array(String name) {
    JsonNode a = header.get("arrays").get(name);
    return ByteBuffer.wrap(bytes, (int) (dataStart + a.get("offset").asLong()), (int) a.get("bytes").asLong())
        .slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  private static JsonNode headerOf(byte[] b) throws IOException {
    long h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(16);
    return JSON.readTree(new String(b, 24, (int) h, StandardCharsets.UTF_8));
  }

  @Test
  void aFlippedByteInAnyArrayIsReportedAsCorrupted() {
    Iterator<Map.Entry<String, JsonNode>> arrays = header.get("arrays").fields();
    while (arrays.hasNext()) {
      Map.Entry<String, JsonNode> a = arrays.next();
      long offset = dataStart + a.getValue().get("offset").asLong();
      long length = a.getValue().get("bytes").asLong();
      for (long at : new long[] {offset, offset + length / 2, offset + length - 1}) {
        byte[] b = bytes.clone();
        b[(int) at] ^= 0x01;
        assertBad(b, "is corrupted: array " + a.getKey() + " does not match its checksum");
      }
    }
  }

  @Test
  void aTruncatedFileIsReportedAsTruncated() {
    JsonNode vectors = header.get("arrays").get("vectors");
    int len = bytes.length;
    int[] cuts = {0, 1, 11, 12, 15, 16, 23, 24, 100, dataStart - 1, dataStart, dataStart + 5,
        dataStart + (int) vectors.get("offset").asLong() + 7, len - 8, len - 1};
    for (int cut : cuts) {
      assertBad(Arrays.copyOf(bytes, cut), "is truncated");
    }
    for (int cut = 0; cut < len; cut += len / 97) {
      assertBad(Arrays.copyOf(bytes, cut), "is truncated");
    }
  }

  @Test
  void wrongMagicIsAnError() {
    byte[] b = bytes.clone();
    b[3] = 'X';
    assertBad(b, "is not a dptext model");
  }

  @Test
  void anUnknownVersionIsAnError() {
    byte[] b = bytes.clone();
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(12, 3);
    assertBad(b, "has format version 3; this dptext reads versions 1 and 2");
  }

  // ------------------------------------------------------------------------------ other writers' files

  /**
   * The file's arrays laid out again under a header Jackson writes (compact, keys in its own order), after
   * {@code edit} changed the header; each array's bytes from {@code arrayEdits} if given, else the original's.
   * Arrays are placed in the header's {@code arrays} order, 64-byte aligned.
   */
  private static byte[] relayout(Consumer<ObjectNode> edit, Map<String, byte[]> arrayEdits) throws IOException {
    return relayout(bytes, edit, arrayEdits);
  }

  private static byte[] relayout(byte[] file, Consumer<ObjectNode> edit, Map<String, byte[]> arrayEdits)
      throws IOException {
    JsonNode original = headerOf(file);
    int start = (int) (24 + ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getLong(16));
    ObjectNode h = original.deepCopy();
    Map<String, byte[]> data = new LinkedHashMap<>();
    original.get("arrays").fields().forEachRemaining(e -> {
      int off = (int) (start + e.getValue().get("offset").asLong());
      data.put(e.getKey(), Arrays.copyOfRange(file, off, off + (int) e.getValue().get("bytes").asLong()));
    });
    data.putAll(arrayEdits);
    edit.accept(h);
    ObjectNode arrays = (ObjectNode) h.get("arrays");
    long offset = 0;
    Iterator<Map.Entry<String, JsonNode>> it = arrays.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      ObjectNode a = (ObjectNode) e.getValue();
      if (!a.has("offset") || a.get("offset").asLong() >= 0) {
        a.put("offset", offset);
      } else {
        a.put("offset", -a.get("offset").asLong()); // an explicit offset, for the misplacement tests
      }
      byte[] d = data.get(e.getKey());
      if (!a.has("bytes")) {
        a.put("bytes", d.length);
      }
      offset = (a.get("offset").asLong() + d.length + 63) / 64 * 64;
    }
    byte[] json = JSON.writeValueAsBytes(h);
    int padded = (int) ((24 + json.length + 63) / 64 * 64 - 24);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(Arrays.copyOf(file, 16));
    out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded).array());
    out.write(json);
    out.write(" ".repeat(padded - json.length).getBytes(StandardCharsets.US_ASCII));
    long end = 0;
    it = arrays.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      end = Math.max(end, e.getValue().get("offset").asLong() + data.get(e.getKey()).length);
    }
    byte[] section = new byte[(int) end];
    it = arrays.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      byte[] d = data.get(e.getKey());
      System.arraycopy(d, 0, section, (int) e.getValue().get("offset").asLong(), d.length);
    }
    out.write(section);
    return out.toByteArray();
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  @Test
  void anotherWritersLayoutReadsTheSame() throws Exception {
    byte[] extra = "not used by this reader".getBytes(StandardCharsets.UTF_8);
    byte[] b = relayout(h -> {
      ObjectNode arrays = (ObjectNode) h.get("arrays");
      // Reversed order, an unknown array in the middle, unknown keys at every level.
      List<String> names = new ArrayList<>();
      arrays.fieldNames().forEachRemaining(names::add);
      ObjectNode reversed = JSON.createObjectNode();
      for (int i = names.size() - 1; i >= 0; i--) {
        reversed.set(names.get(i), arrays.get(names.get(i)));
        if (i == names.size() / 2) {
          ObjectNode unknown = reversed.putObject("extra.thing");
          unknown.put("dtype", "|u1").put("sha256", "0".repeat(64)).putArray("shape").add(extra.length);
        }
      }
      h.set("arrays", reversed);
      h.putObject("future").putArray("nested").add(1).add(2.5).addNull().add(true).addObject().put("é", "\u0001");
      ((ObjectNode) h.get("tables").get(0)).put("comment", "ignored");
      ((ObjectNode) reversed.get("vectors")).put("order", "C");
    }, Map.of("extra.thing", extra));
    assertSameModel(model, read(b));
    JsonNode h = headerOf(b);
    assertTrue(h.get("arrays").get("covariance").get("offset").asLong()
        < h.get("arrays").get("words.offsets").get("offset").asLong(), "the arrays really are reversed");
  }

  @Test
  void arraysSharedBetweenTablesAreReadOnce() throws Exception {
    // Rows of K words for every word in both tables: the same offsets, which another writer may store once.
    DpTextModel uniform = DpTextModel.of(model.embeddings(), "uniform", RowLengths.uniform(K));
    uniform.neighbours(0);
    uniform.neighbours(100);
    assertArrayEquals(uniform.tables().get(0).rawOffsets(), uniform.tables().get(100).rawOffsets());
    byte[] b = relayout(write(uniform), h -> {
      ((ObjectNode) h.get("arrays")).remove("table.100.offsets");
      ((ObjectNode) h.get("tables").get(1)).put("offsets", "table.0.offsets");
    }, Map.of());
    assertEquals(8, headerOf(b).get("arrays").size());
    assertSameModel(uniform, read(b));
  }

  @Test
  void headerChecksAreErrorsNamingTheFile() throws Exception {
    record Case(Consumer<ObjectNode> edit, String message) {}
    List<Case> cases = List.of(
        new Case(h -> h.put("version", 3), "its header says version 3, its first bytes version 2"),
        new Case(h -> h.remove("version"), "its header says version (none)"),
        new Case(h -> h.put("format", "something-else"), "its header does not name the format dptext-model"),
        new Case(h -> h.remove("embeddingsSha256"), "its header's embeddingsSha256 is missing"),
        new Case(h -> h.put("vocabularySize", 2.5), "its header's vocabularySize is not a whole number"),
        new Case(h -> h.put("vocabularySize", "300"), "its header's vocabularySize is not a number"),
        new Case(h -> h.put("dimension", 0), "it declares 300 words × 0 dims"),
        new Case(h -> h.put("tieredRows", "yes"), "its header's tieredRows is not true or false"),
        new Case(h -> ((ObjectNode) h.get("metadata")).put("n", 1), "metadata has a value that is not a string"),
        new Case(h -> ((ObjectNode) h.get("arrays")).remove("vectors"), "its header has no array vectors"),
        new Case(h -> array(h, "vectors").put("dtype", "<f8"), "array vectors is <f8 [300, 8], not <f4 [300, 8]"),
        new Case(h -> array(h, "vectors").putArray("shape").add(N * DIM), "array vectors is <f4 [2400], not <f4"),
        new Case(h -> array(h, "words.utf8").put("bytes", 3), "array words.utf8 declares 3 bytes"),
        new Case(h -> array(h, "vectors").put("offset", -(64L * 3 + 1)), "array vectors has offset 193, not a mult"),
        new Case(h -> array(h, "vectors").put("offset", -64L), "array vectors overlaps the array before it"),
        new Case(h -> array(h, "vectors").put("sha256", "0".repeat(64)), "array vectors does not match its checksum"),
        new Case(h -> ((ObjectNode) h.get("tables").get(1)).put("targetStart", 0), "two neighbour tables have target"),
        new Case(h -> ((ObjectNode) h.get("tables").get(1)).put("targetStart", N), "target start 300 for 300 words"),
        new Case(h -> ((ObjectNode) h.get("tables").get(0)).put("neighbours", "nope"), "has no array nope"),
        new Case(h -> h.put("covariance", "vectors"), "array vectors is <f4 [300, 8], not <f8 [8, 8]"),
        new Case(h -> h.put("embeddingsSha256", "0".repeat(64)), "its embeddings hash to " + model.hash()));
    for (Case c : cases) {
      assertBad(relayout(c.edit(), Map.of()), " is corrupted: ", c.message());
    }
  }

  private static ObjectNode array(ObjectNode h, String name) {
    return (ObjectNode) h.get("arrays").get(name);
  }

  @Test
  void invalidContentUnderAValidChecksumIsStillAnError() throws Exception {
    // A writer that stored bad data and hashed it: the checksum passes, the content checks do not.
    byte[] utf8 = String.join("", model.embeddings().rawWords()).getBytes(StandardCharsets.UTF_8);
    utf8[utf8.length - 1] = (byte) 0xFF;
    assertBad(withArray("words.utf8", utf8), "is corrupted: the word of rank 299 is not valid UTF-8");

    ByteBuffer nb = array("table.290.neighbours");
    byte[] neighbours = new byte[nb.remaining()];
    nb.get(neighbours);
    ByteBuffer.wrap(neighbours).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 3); // rank 3 is not a target of [290, 300)
    assertBad(withArray("table.290.neighbours", neighbours), "neighbour table 1 names rank 3, outside its targets");

    byte[] offsets = new byte[8 * (N + 1)];
    ByteBuffer o = ByteBuffer.wrap(offsets).order(ByteOrder.LITTLE_ENDIAN);
    array("words.offsets").get(offsets);
    o.putLong(8, o.getLong(16) + 1); // word 0 longer than word 0 and 1 together: offsets decrease
    assertBad(withArray("words.offsets", offsets), "its word offsets decrease at rank 1");

    String[] twice = model.embeddings().rawWords().clone();
    twice[1] = twice[0];
    byte[] dup = String.join("", twice).getBytes(StandardCharsets.UTF_8);
    byte[] dupOffsets = new byte[8 * (N + 1)];
    long at = 0;
    for (int i = 0; i < N; i++) {
      at += twice[i].getBytes(StandardCharsets.UTF_8).length;
      ByteBuffer.wrap(dupOffsets).order(ByteOrder.LITTLE_ENDIAN).putLong(8 * (i + 1), at);
    }
    byte[] file = relayout(h -> {
      try {
        array(h, "words.utf8").put("sha256", sha256(dup)).put("bytes", dup.length).putArray("shape").add(dup.length);
        array(h, "words.offsets").put("sha256", sha256(dupOffsets));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, Map.of("words.utf8", dup, "words.offsets", dupOffsets));
    assertBad(file, "is corrupted: its vocabulary is not a list of distinct words");
  }

  /** The file with array {@code name}'s bytes replaced (same length) and its SHA-256 updated. */
  private static byte[] withArray(String name, byte[] content) throws Exception {
    String sha = sha256(content);
    return relayout(h -> array(h, name).put("sha256", sha), Map.of(name, content));
  }

  @Test
  void aCorruptedHeaderIsAnError() throws Exception {
    byte[] b = bytes.clone();
    b[24] = '['; // the header's opening brace
    assertBad(b, "is corrupted: its header is not JSON");
    b = bytes.clone();
    b[26] = (byte) 0xC3; // a lone UTF-8 lead byte
    assertBad(b, "is corrupted: its header is not UTF-8");
    b = bytes.clone();
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(16, dataStart - 24 + 8);
    assertBad(b, "is corrupted: its header length " + (dataStart - 24 + 8) + " is not one");
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(16, -64);
    assertBad(b, "is corrupted: its header length 18446744073709551552 is not one");
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(16, (1L << 40) - 24);
    assertBad(b, "is corrupted: its header length");
  }

  @Test
  void headerJsonIsValidForAnyMetadata() throws Exception {
    Map<String, String> odd = new LinkedHashMap<>();
    odd.put("control", "a\u0000b\u001fc\td\re\nf");
    odd.put("quote \" and \\", "</script> \u2028 \uD83D\uDE00");
    odd.put("lone surrogate", "x\uD800y");
    DpTextModel m = new DpTextModel(model.embeddings(), model.rowLengths(), Map.of(), odd, model.hash());
    byte[] b = write(m);
    assertEquals(odd.get("control"), headerOf(b).get("metadata").get("control").asText(), "Jackson reads it");
    assertEquals(odd, read(b).metadata());
  }

  @Test
  void aWordWithALoneSurrogateCannotBeWritten() {
    String[] words = model.embeddings().rawWords().clone();
    words[7] = "bad\uDC00";
    DpTextModel m = DpTextModel.of(new Embeddings(words, model.embeddings().rawVectors(), DIM), "t", K);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> write(m));
    ErrorAssertions.assertError(e, "MODEL_WORD_NOT_UNICODE", Map.of("rank", 7));
  }

  @Test
  void aVersionOneFileOfTheSameModelReadsTheSame() throws IOException {
    byte[] v1 = V1Writer.write(model);
    assertEquals(1, ByteBuffer.wrap(v1).getInt(12));
    DpTextModel back = read(v1);
    assertSameModel(model, back);
    assertArrayEquals(bytes, write(back));
  }

  @Test
  void tablesAreKeptByTargetStart() throws IOException {
    DpTextModel back = read(bytes);
    assertNotNull(back.tables().get(0));
    assertNotNull(back.tables().get(N - 10));
    assertNull(back.tables().get(1));
    assertTrue(back.hasNeighbours(N - 10));
  }
}
