package dev.dptext.model;

import dev.dptext.errors.DpTextErrors;
import static dev.dptext.model.ModelArtifact.corrupted;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.json.Json;
import dev.dptext.knn.RowLengths;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Model files of format version 2, as {@code docs/model-format.md} specifies them: the magic, the version
 * and the header's length, a JSON header ({@link Json}) padded with spaces to a multiple of 64 bytes,
 * then little-endian arrays, each at a multiple of 64 bytes from the data section's start and each with
 * the SHA-256 of its bytes in the header.
 *
 * <p>The writer lays the arrays out in the order {@code words.offsets}, {@code words.utf8}, {@code vectors},
 * per table (by target start S) {@code table.S.offsets}, {@code table.S.neighbours},
 * {@code table.S.outsideBounds}, then {@code covariance}, zero bytes between them. The reader takes them in
 * whatever order the header's offsets give, reads each one it uses once, skips the rest, and checks every
 * array's dtype, shape, size and SHA-256, then the embeddings hash, so that a damaged file is an error,
 * never a silently different model. It reads a stream front to back, skipping forward only: the file may
 * be on any Hadoop file system, and {@code ModelLoader} hashes the bytes as they pass.
 */
final class ModelFileV2 {
  static final int VERSION = DpTextModel.FORMAT_VERSION;
  static final String FORMAT = "dptext-model";
  /** Arrays (and the data section) start at multiples of this many bytes. */
  static final int ALIGNMENT = 64;
  /** The fixed part before the header: magic (12), version (4), header length (8). */
  static final int PREAMBLE = 24;
  /** A header longer than this is a damaged length field: even large metadata is a few kilobytes. */
  static final long MAX_HEADER = 64L << 20;
  /** The largest Java array: longer arrays cannot be a model this JVM holds. */
  private static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;
  private static final int CHUNK = 1 << 16;

  private ModelFileV2() {}

  // ------------------------------------------------------------------------------------------ writing

  /** One array to store: its name, NumPy dtype, shape and values (a primitive array). */
  private record Out(String name, String dtype, long[] shape, Object values) {
    long bytes() {
      return (long) java.lang.reflect.Array.getLength(values) * itemSize(dtype);
    }
  }

  static void write(DpTextModel model, OutputStream out) throws IOException {
    Embeddings emb = model.embeddings();
    int n = emb.size();
    int dim = emb.dim();
    long[] wordOffsets = new long[n + 1];
    byte[][] encoded = new byte[n][];
    CharsetEncoder utf8 = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    for (int i = 0; i < n; i++) {
      try {
        ByteBuffer b = utf8.encode(CharBuffer.wrap(emb.word(i)));
        encoded[i] = Arrays.copyOfRange(b.array(), b.position(), b.limit());
      } catch (CharacterCodingException e) {
        throw DpTextErrors.error("MODEL_WORD_NOT_UNICODE", "rank", i);
      }
      wordOffsets[i + 1] = wordOffsets[i] + encoded[i].length;
    }
    if (wordOffsets[n] > MAX_ELEMENTS) {
      throw DpTextErrors.error("MODEL_TOO_LARGE_FOR_ONE_FILE", "bytes", wordOffsets[n], "max", MAX_ELEMENTS);
    }
    byte[] words = new byte[(int) wordOffsets[n]];
    for (int i = 0; i < n; i++) {
      System.arraycopy(encoded[i], 0, words, (int) wordOffsets[i], encoded[i].length);
    }

    List<Out> arrays = new ArrayList<>();
    arrays.add(new Out("words.offsets", "<i8", new long[] {n + 1}, wordOffsets));
    arrays.add(new Out("words.utf8", "|u1", new long[] {words.length}, words));
    arrays.add(new Out("vectors", "<f4", new long[] {n, dim}, emb.rawVectors()));
    List<Integer> starts = new ArrayList<>(model.tables().keySet());
    for (int s : starts) {
      NeighbourTable t = model.tables().get(s);
      arrays.add(new Out(tableArray(s, "offsets"), "<i4", new long[] {n + 1}, t.rawOffsets()));
      arrays.add(new Out(tableArray(s, "neighbours"), "<i4", new long[] {t.rawNeighbours().length},
          t.rawNeighbours()));
      arrays.add(new Out(tableArray(s, "outsideBounds"), "<f8", new long[] {n}, t.rawOutsideBounds()));
    }
    if (model.hasCovariance()) {
      arrays.add(new Out("covariance", "<f8", new long[] {dim, dim}, model.covariance().sigma()));
    }

    // The header records each array's SHA-256 and offset, so both are known before any array is written.
    StringBuilder json = new StringBuilder(4096).append("{\n");
    json.append("  \"format\": ").append(Json.quote(FORMAT)).append(",\n");
    json.append("  \"version\": ").append(VERSION).append(",\n");
    json.append("  \"metadata\": {");
    String sep = "";
    for (Map.Entry<String, String> e : model.metadata().entrySet()) {
      json.append(sep).append(Json.quote(e.getKey())).append(": ").append(Json.quote(e.getValue()));
      sep = ", ";
    }
    json.append("},\n");
    json.append("  \"embeddingsSha256\": ").append(Json.quote(model.hash())).append(",\n");
    json.append("  \"vocabularySize\": ").append(n).append(",\n");
    json.append("  \"dimension\": ").append(dim).append(",\n");
    json.append("  \"neighbourCount\": ").append(model.neighbourCount()).append(",\n");
    json.append("  \"tieredRows\": ").append(model.rowLengths().tiered()).append(",\n");
    json.append("  \"arrays\": {\n");
    long offset = 0;
    for (int i = 0; i < arrays.size(); i++) {
      Out a = arrays.get(i);
      MessageDigest md = ModelArtifact.sha256();
      emit(a.values(), md::update);
      json.append("    ").append(Json.quote(a.name())).append(": {\"dtype\": ")
          .append(Json.quote(a.dtype())).append(", \"shape\": [");
      for (int d = 0; d < a.shape().length; d++) {
        json.append(d == 0 ? "" : ", ").append(a.shape()[d]);
      }
      json.append("], \"offset\": ").append(offset).append(", \"bytes\": ").append(a.bytes())
          .append(", \"sha256\": ").append(Json.quote(HexFormat.of().formatHex(md.digest()))).append('}')
          .append(i + 1 < arrays.size() ? ",\n" : "\n");
      offset = align(offset + a.bytes());
    }
    json.append("  },\n");
    json.append("  \"tables\": [");
    for (int i = 0; i < starts.size(); i++) {
      int s = starts.get(i);
      json.append(i == 0 ? "\n" : ",\n").append("    {\"targetStart\": ").append(s)
          .append(", \"offsets\": ").append(Json.quote(tableArray(s, "offsets")))
          .append(", \"neighbours\": ").append(Json.quote(tableArray(s, "neighbours")))
          .append(", \"outsideBounds\": ").append(Json.quote(tableArray(s, "outsideBounds"))).append('}');
    }
    json.append(starts.isEmpty() ? "],\n" : "\n  ],\n");
    json.append("  \"covariance\": ").append(model.hasCovariance() ? Json.quote("covariance") : "null")
        .append("\n}\n");
    byte[] header = json.toString().getBytes(StandardCharsets.UTF_8);
    int padded = (int) (align(PREAMBLE + header.length) - PREAMBLE);

    ByteBuffer preamble = ByteBuffer.allocate(PREAMBLE).order(ByteOrder.LITTLE_ENDIAN);
    preamble.put(ModelArtifact.MAGIC).putInt(VERSION).putLong(padded);
    out.write(preamble.array());
    out.write(header);
    writeFill(out, padded - header.length, (byte) ' ');
    long written = 0;
    for (int i = 0; i < arrays.size(); i++) {
      if (i > 0) {
        writeFill(out, align(written) - written, (byte) 0);
        written = align(written);
      }
      emit(arrays.get(i).values(), out::write);
      written += arrays.get(i).bytes();
    }
    out.flush();
  }

  static String tableArray(int targetStart, String part) {
    return "table." + targetStart + "." + part;
  }

  static long align(long x) {
    return (x + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  }

  private interface Chunks {
    void accept(byte[] bytes, int offset, int length) throws IOException;
  }

  /** Hands {@code values}' little-endian bytes to {@code sink}, in chunks. */
  private static void emit(Object values, Chunks sink) throws IOException {
    if (values instanceof byte[] b) {
      for (int i = 0; i < b.length; i += CHUNK) {
        sink.accept(b, i, Math.min(CHUNK, b.length - i));
      }
      return;
    }
    ByteBuffer buf = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
    int length = java.lang.reflect.Array.getLength(values);
    int size = values instanceof long[] || values instanceof double[] ? 8 : 4;
    int per = CHUNK / size;
    for (int i = 0; i < length; i += per) {
      int c = Math.min(per, length - i);
      buf.clear();
      if (values instanceof int[] a) {
        buf.asIntBuffer().put(a, i, c);
      } else if (values instanceof long[] a) {
        buf.asLongBuffer().put(a, i, c);
      } else if (values instanceof float[] a) {
        buf.asFloatBuffer().put(a, i, c);
      } else {
        buf.asDoubleBuffer().put((double[]) values, i, c);
      }
      sink.accept(buf.array(), 0, size * c);
    }
  }

  private static void writeFill(OutputStream out, long count, byte value) throws IOException {
    byte[] fill = new byte[ALIGNMENT];
    Arrays.fill(fill, value);
    for (long left = count; left > 0; left -= ALIGNMENT) {
      out.write(fill, 0, (int) Math.min(ALIGNMENT, left));
    }
  }

  // ------------------------------------------------------------------------------------------ reading

  /** An array the header declares, as a reader uses it. */
  private record ArraySpec(String name, String dtype, long[] shape, long offset, long bytes, String sha256) {}

  /** Reads the rest of a version 2 file, {@code in} positioned after its magic and version. */
  static DpTextModel read(DataInputStream in, String name) throws IOException {
    long headerLength = Long.reverseBytes(in.readLong());
    if (headerLength < 0 || headerLength > MAX_HEADER || (PREAMBLE + headerLength) % ALIGNMENT != 0) {
      throw corrupted(name, "its header length " + Long.toUnsignedString(headerLength) + " is not one a model "
          + "file has (at most " + MAX_HEADER + " bytes, ending at a multiple of " + ALIGNMENT + ")");
    }
    byte[] headerBytes = new byte[(int) headerLength];
    in.readFully(headerBytes);
    Map<String, Object> header = header(headerBytes, name);
    Header h = new Header(header, name);

    if (!FORMAT.equals(h.get("format"))) {
      throw corrupted(name, "its header does not name the format " + FORMAT);
    }
    if (!(h.get("version") instanceof BigDecimal v && v.compareTo(BigDecimal.valueOf(VERSION)) == 0)) {
      throw corrupted(name, "its header says version " + (h.get("version") instanceof BigDecimal v ? v : "(none)")
          + ", its first bytes version " + VERSION);
    }
    Map<String, String> meta = new LinkedHashMap<>();
    Object metaValue = h.get("metadata");
    if (metaValue != null) {
      for (Map.Entry<String, Object> e : h.object(metaValue, "metadata").entrySet()) {
        if (!(e.getValue() instanceof String s)) {
          throw corrupted(name, "its header's metadata has a value that is not a string");
        }
        meta.put(e.getKey(), s);
      }
    }
    String hash = h.string(h.get("embeddingsSha256"), "embeddingsSha256");
    long nLong = h.integer(h.get("vocabularySize"), "vocabularySize");
    long dimLong = h.integer(h.get("dimension"), "dimension");
    long k = h.integer(h.get("neighbourCount"), "neighbourCount");
    if (!(h.get("tieredRows") instanceof Boolean tiered)) {
      throw corrupted(name, "its header's tieredRows is not true or false");
    }
    if (nLong <= 0 || dimLong <= 0 || k <= 0 || nLong > MAX_ELEMENTS || dimLong > MAX_ELEMENTS
        || k > Integer.MAX_VALUE || nLong * dimLong > MAX_ELEMENTS) {
      throw corrupted(name, "it declares " + nLong + " words × " + dimLong + " dims, K=" + k);
    }
    int n = (int) nLong;
    int dim = (int) dimLong;

    Map<String, ArraySpec> declared = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : h.object(h.get("arrays"), "arrays").entrySet()) {
      declared.put(e.getKey(), h.array(e.getKey(), e.getValue()));
    }
    // What this reader uses, checked against the header before any array is read.
    Map<String, ArraySpec> used = new LinkedHashMap<>();
    ArraySpec wordOffsetsSpec = h.use(declared, used, "words.offsets", "<i8", n + 1L);
    ArraySpec wordsSpec = h.use(declared, used, "words.utf8", "|u1", -1);
    ArraySpec vectorsSpec = h.use(declared, used, "vectors", "<f4", n, dim);
    record TableRefs(int start, ArraySpec offsets, ArraySpec neighbours, ArraySpec bounds) {}
    List<TableRefs> tableRefs = new ArrayList<>();
    Object tablesValue = h.get("tables");
    List<Object> tableList = tablesValue == null ? List.of() : h.list(tablesValue, "tables");
    for (int t = 0; t < tableList.size(); t++) {
      Map<String, Object> entry = h.object(tableList.get(t), "tables[" + t + "]");
      long start = h.integer(entry.get("targetStart"), "tables[" + t + "].targetStart");
      if (start < 0 || start >= n) {
        throw corrupted(name, "neighbour table " + t + " has target start " + start + " for " + n + " words");
      }
      for (TableRefs r : tableRefs) {
        if (r.start() == start) {
          throw corrupted(name, "two neighbour tables have target start " + start);
        }
      }
      ArraySpec nb = h.use(declared, used, h.string(entry.get("neighbours"), "tables[" + t + "].neighbours"),
          "<i4", -1);
      if (nb.shape()[0] < n || nb.shape()[0] > (long) n * (n - start) || nb.shape()[0] > MAX_ELEMENTS) {
        throw corrupted(name, "neighbour table " + t + " has target start " + start + " and " + nb.shape()[0]
            + " entries");
      }
      tableRefs.add(new TableRefs((int) start,
          h.use(declared, used, h.string(entry.get("offsets"), "tables[" + t + "].offsets"), "<i4", n + 1L),
          nb,
          h.use(declared, used, h.string(entry.get("outsideBounds"), "tables[" + t + "].outsideBounds"), "<f8", n)));
    }
    Object covarianceValue = h.get("covariance");
    ArraySpec covarianceSpec = covarianceValue == null ? null
        : h.use(declared, used, h.string(covarianceValue, "covariance"), "<f8", dim, dim);

    Map<String, Object> values = readArrays(in, used.values(), name);

    long[] wordOffsets = (long[]) values.get(wordOffsetsSpec.name());
    byte[] utf8 = (byte[]) values.get(wordsSpec.name());
    String[] words = words(wordOffsets, utf8, name);
    Embeddings emb = ModelArtifact.embeddings(words, (float[]) values.get(vectorsSpec.name()), dim, name);
    ModelArtifact.checkEmbeddingsHash(emb, hash, name);

    Map<Integer, NeighbourTable> tables = new LinkedHashMap<>();
    for (int t = 0; t < tableRefs.size(); t++) {
      TableRefs r = tableRefs.get(t);
      int[] neighbours = (int[]) values.get(r.neighbours().name());
      for (int y : neighbours) {
        if (y < r.start() || y >= n) {
          throw corrupted(name, "neighbour table " + t + " names rank " + y + ", outside its targets [" + r.start()
              + ", " + n + ")");
        }
      }
      tables.put(r.start(), ModelArtifact.table(r.start(), (int[]) values.get(r.offsets().name()), neighbours,
          (double[]) values.get(r.bounds().name()), "neighbour table " + t, name));
    }
    DpTextModel model = new DpTextModel(emb, new RowLengths((int) k, tiered), tables, meta, hash);
    if (covarianceSpec != null) {
      model.setCovariance(new EmbeddingCovariance(dim, (double[]) values.get(covarianceSpec.name())));
    }
    return model;
  }

  private static Map<String, Object> header(byte[] bytes, String name) {
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw corrupted(name, "its header is not UTF-8");
    }
    Object parsed;
    try {
      parsed = Json.parse(text);
    } catch (Json.JsonException e) {
      throw corrupted(name, "its header is not JSON (" + e.getMessage() + ")");
    }
    if (!(parsed instanceof Map<?, ?> map)) {
      throw corrupted(name, "its header is not a JSON object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> header = (Map<String, Object>) map;
    return header;
  }

  /** Reads the arrays in file order, skipping what lies between them, and checks each one's SHA-256. */
  private static Map<String, Object> readArrays(DataInputStream in, java.util.Collection<ArraySpec> specs, String name)
      throws IOException {
    List<ArraySpec> ordered = new ArrayList<>(specs);
    ordered.sort(Comparator.comparingLong(ArraySpec::offset));
    long end = 0;
    for (ArraySpec a : ordered) {
      if (a.offset() < end) {
        throw corrupted(name, "array " + a.name() + " overlaps the array before it");
      }
      end = a.offset() + a.bytes();
    }
    Map<String, Object> values = new LinkedHashMap<>();
    long position = 0;
    byte[] chunk = new byte[CHUNK];
    for (ArraySpec a : ordered) {
      in.skipNBytes(a.offset() - position);
      int length = (int) (a.bytes() / itemSize(a.dtype()));
      Object target = switch (a.dtype()) {
        case "|u1" -> new byte[length];
        case "<i4" -> new int[length];
        case "<i8" -> new long[length];
        case "<f4" -> new float[length];
        case "<f8" -> new double[length];
        default -> throw new IllegalStateException(a.dtype());
      };
      MessageDigest md = ModelArtifact.sha256();
      int item = itemSize(a.dtype());
      for (long done = 0; done < a.bytes(); ) {
        int c = (int) Math.min(CHUNK, a.bytes() - done);
        in.readFully(chunk, 0, c);
        md.update(chunk, 0, c);
        ByteBuffer b = ByteBuffer.wrap(chunk, 0, c).order(ByteOrder.LITTLE_ENDIAN);
        int at = (int) (done / item);
        if (target instanceof byte[] t) {
          System.arraycopy(chunk, 0, t, at, c);
        } else if (target instanceof int[] t) {
          b.asIntBuffer().get(t, at, c / item);
        } else if (target instanceof long[] t) {
          b.asLongBuffer().get(t, at, c / item);
        } else if (target instanceof float[] t) {
          b.asFloatBuffer().get(t, at, c / item);
        } else {
          b.asDoubleBuffer().get((double[]) target, at, c / item);
        }
        done += c;
      }
      if (!HexFormat.of().formatHex(md.digest()).equalsIgnoreCase(a.sha256())) {
        throw corrupted(name, "array " + a.name() + " does not match its checksum");
      }
      values.put(a.name(), target);
      position = a.offset() + a.bytes();
    }
    return values;
  }

  private static String[] words(long[] offsets, byte[] utf8, String name) {
    int n = offsets.length - 1;
    if (offsets[0] != 0 || offsets[n] != utf8.length) {
      throw corrupted(name, "its word offsets run from " + offsets[0] + " to " + offsets[n] + " over "
          + utf8.length + " bytes");
    }
    var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    String[] words = new String[n];
    for (int i = 0; i < n; i++) {
      if (offsets[i + 1] < offsets[i]) {
        throw corrupted(name, "its word offsets decrease at rank " + i);
      }
      try {
        words[i] = decoder.decode(ByteBuffer.wrap(utf8, (int) offsets[i], (int) (offsets[i + 1] - offsets[i])))
            .toString();
      } catch (CharacterCodingException e) {
        throw corrupted(name, "the word of rank " + i + " is not valid UTF-8");
      }
    }
    return words;
  }

  static int itemSize(String dtype) {
    return switch (dtype) {
      case "|u1" -> 1;
      case "<i4", "<f4" -> 4;
      case "<i8", "<f8" -> 8;
      default -> -1;
    };
  }

  /** Typed access to the header, every failure an error naming the file. */
  private static final class Header {
    private final Map<String, Object> map;
    private final String name;

    Header(Map<String, Object> map, String name) {
      this.map = map;
      this.name = name;
    }

    Object get(String key) {
      return map.get(key);
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> object(Object value, String what) {
      if (!(value instanceof Map<?, ?> m)) {
        throw corrupted(name, "its header's " + what + " is " + (value == null ? "missing" : "not an object"));
      }
      return (Map<String, Object>) m;
    }

    @SuppressWarnings("unchecked")
    List<Object> list(Object value, String what) {
      if (!(value instanceof List<?> l)) {
        throw corrupted(name, "its header's " + what + " is not a list");
      }
      return (List<Object>) l;
    }

    String string(Object value, String what) {
      if (!(value instanceof String s)) {
        throw corrupted(name, "its header's " + what + " is " + (value == null ? "missing" : "not a string"));
      }
      return s;
    }

    long integer(Object value, String what) {
      if (!(value instanceof BigDecimal d)) {
        throw corrupted(name, "its header's " + what + " is " + (value == null ? "missing" : "not a number"));
      }
      // A whole number in long range; checked on precision and scale first: 1e999999999 is never expanded.
      BigDecimal s = d.stripTrailingZeros();
      if (s.scale() > 0 || s.precision() - s.scale() > 19) {
        throw corrupted(name, "its header's " + what + " is not a whole number in range");
      }
      try {
        return s.longValueExact();
      } catch (ArithmeticException e) {
        throw corrupted(name, "its header's " + what + " is not a whole number in range");
      }
    }

    ArraySpec array(String arrayName, Object value) {
      String what = "array " + arrayName;
      Map<String, Object> spec = object(value, what);
      List<Object> shapeList = list(spec.get("shape"), what + "'s shape");
      long[] shape = new long[shapeList.size()];
      for (int i = 0; i < shape.length; i++) {
        shape[i] = integer(shapeList.get(i), what + "'s shape");
      }
      return new ArraySpec(arrayName, string(spec.get("dtype"), what + "'s dtype"), shape,
          integer(spec.get("offset"), what + "'s offset"), integer(spec.get("bytes"), what + "'s bytes"),
          string(spec.get("sha256"), what + "'s sha256"));
    }

    /**
     * The array {@code arrayName}, checked to be declared with this dtype and shape ({@code -1}: any length),
     * to hold exactly shape × item size bytes and to start at a multiple of {@value ALIGNMENT}; noted in
     * {@code used}. An array used twice (two tables sharing their offsets) is read once.
     */
    ArraySpec use(Map<String, ArraySpec> declared, Map<String, ArraySpec> used, String arrayName, String dtype,
        long... shape) {
      ArraySpec a = declared.get(arrayName);
      if (a == null) {
        throw corrupted(name, "its header has no array " + arrayName);
      }
      boolean shapeOk = a.dtype().equals(dtype) && a.shape().length == shape.length;
      long count = 1;
      for (int d = 0; shapeOk && d < shape.length; d++) {
        long extent = a.shape()[d];
        shapeOk = extent >= 0 && (shape[d] < 0 || extent == shape[d]);
        if (shapeOk && extent > 0 && count > MAX_ELEMENTS / extent) {
          throw corrupted(name, "array " + arrayName + " has more than " + MAX_ELEMENTS + " elements");
        }
        count *= extent;
      }
      if (!shapeOk) {
        throw corrupted(name, "array " + arrayName + " is " + describeArray(a) + ", not " + dtype + " "
            + Arrays.toString(shape).replace("-1", "any"));
      }
      if (a.bytes() != count * itemSize(dtype)) {
        throw corrupted(name, "array " + arrayName + " declares " + a.bytes() + " bytes for its shape "
            + Arrays.toString(a.shape()));
      }
      if (a.offset() < 0 || a.offset() % ALIGNMENT != 0) {
        throw corrupted(name, "array " + arrayName + " has offset " + a.offset() + ", not a multiple of "
            + ALIGNMENT);
      }
      used.put(arrayName, a);
      return a;
    }

    private static String describeArray(ArraySpec a) {
      return (itemSize(a.dtype()) > 0 ? a.dtype() : "of an unknown dtype") + " " + Arrays.toString(a.shape());
    }
  }
}
