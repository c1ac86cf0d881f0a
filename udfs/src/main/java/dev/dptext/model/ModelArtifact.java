package dev.dptext.model;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The versioned binary file a {@code build-model} step saves, so that a nightly job loads a model
 * instead of rebuilding it.
 *
 * <pre>
 * "DPTEXT-MODEL" | int format version | int metadata entries, (UTF key, UTF value)…
 * | UTF embeddings SHA-256 | int |V| | int m | int K | byte tiered rows
 * | UTF word × |V| | float × |V|·m
 * | int tables | (int target start, int entries E, int × (|V|+1) row offsets, int × E neighbours,
 *                 double × |V| outside bounds, UTF table SHA-256) × tables
 * | boolean covariance present | double × m·m scaled covariance Σ (row-major), UTF SHA-256, when present
 * </pre>
 *
 * Big-endian throughout. Reading checks the magic, the version and the embeddings hash, so a
 * truncated, corrupted or foreign file is an error naming the file, not a silently different model.
 */
public final class ModelArtifact {
  private static final byte[] MAGIC = "DPTEXT-MODEL".getBytes(StandardCharsets.US_ASCII);

  private ModelArtifact() {}

  public static void write(DpTextModel model, OutputStream stream) throws IOException {
    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(stream, 1 << 16));
    out.write(MAGIC);
    out.writeInt(DpTextModel.FORMAT_VERSION);
    out.writeInt(model.metadata().size());
    for (Map.Entry<String, String> e : model.metadata().entrySet()) {
      out.writeUTF(e.getKey());
      out.writeUTF(e.getValue());
    }
    out.writeUTF(model.hash());
    Embeddings emb = model.embeddings();
    out.writeInt(emb.size());
    out.writeInt(emb.dim());
    out.writeInt(model.neighbourCount());
    out.writeBoolean(model.rowLengths().tiered());
    for (String w : emb.rawWords()) {
      out.writeUTF(w);
    }
    writeFloats(out, emb.rawVectors());
    Map<Integer, NeighbourTable> tables = model.tables();
    out.writeInt(tables.size());
    for (NeighbourTable t : tables.values()) {
      out.writeInt(t.targetStart());
      out.writeInt(t.rawNeighbours().length);
      writeInts(out, t.rawOffsets());
      writeInts(out, t.rawNeighbours());
      for (double b : t.rawOutsideBounds()) {
        out.writeDouble(b);
      }
      out.writeUTF(tableHash(t));
    }
    out.writeBoolean(model.hasCovariance());
    if (model.hasCovariance()) {
      double[] sigma = model.covariance().sigma();
      for (double x : sigma) {
        out.writeDouble(x);
      }
      out.writeUTF(doublesHash(sigma));
    }
    out.flush();
  }

  /**
   * Reads an artifact.
   *
   * @param name the file's name, for error messages
   */
  public static DpTextModel read(InputStream stream, String name) throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(stream, 1 << 16));
    try {
      byte[] magic = new byte[MAGIC.length];
      in.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new IllegalArgumentException(
            "Model file " + name + " is not a dptext model (wrong magic bytes); build one with "
                + "`dptext build-model`");
      }
      int version = in.readInt();
      if (version != DpTextModel.FORMAT_VERSION) {
        throw new IllegalArgumentException(
            "Model file " + name + " has format version " + version + "; this dptext reads version "
                + DpTextModel.FORMAT_VERSION + "; rebuild it with `dptext build-model`");
      }
      int entries = in.readInt();
      Map<String, String> meta = new LinkedHashMap<>();
      for (int i = 0; i < entries; i++) {
        meta.put(in.readUTF(), in.readUTF());
      }
      String hash = in.readUTF();
      int n = in.readInt();
      int dim = in.readInt();
      int k = in.readInt();
      boolean tiered = in.readBoolean();
      if (n <= 0 || dim <= 0 || k <= 0 || (long) n * dim > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(
            "Model file " + name + " is corrupted: it declares " + n + " words × " + dim + " dims, K="
                + k + "; rebuild it with `dptext build-model`");
      }
      String[] words = new String[n];
      for (int i = 0; i < n; i++) {
        words[i] = in.readUTF();
      }
      float[] vectors = readFloats(in, n * dim);
      Embeddings emb = new Embeddings(words, vectors, dim);
      String actual = EmbeddingsHash.of(emb);
      if (!actual.equals(hash)) {
        throw new IllegalArgumentException(
            "Model file " + name + " is corrupted: its embeddings hash to " + actual + ", the file "
                + "says " + hash + "; rebuild it with `dptext build-model`");
      }
      int tableCount = in.readInt();
      Map<Integer, NeighbourTable> tables = new LinkedHashMap<>();
      for (int t = 0; t < tableCount; t++) {
        int start = in.readInt();
        int tableEntries = in.readInt();
        if (start < 0 || start >= n || tableEntries < n || (long) tableEntries > (long) n * (n - start)) {
          throw new IllegalArgumentException(
              "Model file " + name + " is corrupted: neighbour table " + t + " has target start " + start
                  + " and " + tableEntries + " entries; rebuild it with `dptext build-model`");
        }
        int[] offsets = readInts(in, n + 1);
        int[] nb = readInts(in, tableEntries);
        double[] bounds = new double[n];
        for (int i = 0; i < n; i++) {
          bounds[i] = in.readDouble();
        }
        NeighbourTable table;
        try {
          table = new NeighbourTable(start, offsets, nb, bounds);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "Model file " + name + " is corrupted: neighbour table " + t + " (" + e.getMessage()
                  + "); rebuild it with `dptext build-model`");
        }
        if (!in.readUTF().equals(tableHash(table))) {
          throw new IllegalArgumentException(
              "Model file " + name + " is corrupted: neighbour table " + t + " does not match its "
                  + "checksum; rebuild it with `dptext build-model`");
        }
        tables.put(start, table);
      }
      DpTextModel model = new DpTextModel(emb, new RowLengths(k, tiered), tables, meta, hash);
      if (in.readBoolean()) {
        double[] sigma = new double[dim * dim];
        for (int i = 0; i < sigma.length; i++) {
          sigma[i] = in.readDouble();
        }
        if (!in.readUTF().equals(doublesHash(sigma))) {
          throw new IllegalArgumentException(
              "Model file " + name + " is corrupted: the covariance does not match its checksum; "
                  + "rebuild it with `dptext build-model`");
        }
        model.setCovariance(new EmbeddingCovariance(dim, sigma));
      }
      return model;
    } catch (EOFException e) {
      throw new IllegalArgumentException(
          "Model file " + name + " is truncated; rebuild it with `dptext build-model`", e);
    } catch (java.io.UTFDataFormatException e) {
      throw new IllegalArgumentException(
          "Model file " + name + " is corrupted (a word is not valid modified UTF-8); rebuild it with "
              + "`dptext build-model`", e);
    }
  }

  private static String doublesHash(double[] values) {
    try {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      ByteBuffer b8 = ByteBuffer.allocate(8);
      for (double v : values) {
        b8.clear();
        md.update(b8.putDouble(v).array());
      }
      return java.util.HexFormat.of().formatHex(md.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** SHA-256 over a table's arrays: a sampler with a corrupted table would be silently inexact. */
  private static String tableHash(NeighbourTable t) {
    try {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      ByteBuffer header = ByteBuffer.allocate(4).putInt(t.targetStart());
      md.update(header.array());
      ByteBuffer buf = ByteBuffer.allocate(4 * 8192);
      for (int[] array : new int[][] {t.rawOffsets(), t.rawNeighbours()}) {
        for (int i = 0; i < array.length; i += 8192) {
          int c = Math.min(8192, array.length - i);
          buf.clear();
          buf.asIntBuffer().put(array, i, c);
          md.update(buf.array(), 0, 4 * c);
        }
      }
      ByteBuffer b8 = ByteBuffer.allocate(8);
      for (double b : t.rawOutsideBounds()) {
        b8.clear();
        md.update(b8.putDouble(b).array());
      }
      return java.util.HexFormat.of().formatHex(md.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void writeFloats(DataOutputStream out, float[] v) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(4 * 8192);
    for (int i = 0; i < v.length; i += 8192) {
      int c = Math.min(8192, v.length - i);
      buf.clear();
      buf.asFloatBuffer().put(v, i, c);
      out.write(buf.array(), 0, 4 * c);
    }
  }

  private static void writeInts(DataOutputStream out, int[] v) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(4 * 8192);
    for (int i = 0; i < v.length; i += 8192) {
      int c = Math.min(8192, v.length - i);
      buf.clear();
      buf.asIntBuffer().put(v, i, c);
      out.write(buf.array(), 0, 4 * c);
    }
  }

  private static float[] readFloats(DataInputStream in, int count) throws IOException {
    float[] v = new float[count];
    byte[] bytes = new byte[4 * 8192];
    for (int i = 0; i < count; i += 8192) {
      int c = Math.min(8192, count - i);
      in.readFully(bytes, 0, 4 * c);
      ByteBuffer.wrap(bytes, 0, 4 * c).asFloatBuffer().get(v, i, c);
    }
    return v;
  }

  private static int[] readInts(DataInputStream in, int count) throws IOException {
    int[] v = new int[count];
    byte[] bytes = new byte[4 * 8192];
    for (int i = 0; i < count; i += 8192) {
      int c = Math.min(8192, count - i);
      in.readFully(bytes, 0, 4 * c);
      ByteBuffer.wrap(bytes, 0, 4 * c).asIntBuffer().get(v, i, c);
    }
    return v;
  }
}
