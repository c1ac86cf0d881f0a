package dev.dptext.model;

import dev.dptext.errors.DpTextErrors;
import static dev.dptext.model.ModelArtifact.corrupted;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads model files of format version 1, which dptext wrote before version 2 ({@code docs/model-format.md}).
 * Nothing writes them any more; they are read so that models built before stay usable on the JVM.
 *
 * <pre>
 * "DPTEXT-MODEL" | int format version 1 | int metadata entries, (UTF key, UTF value)…
 * | UTF embeddings SHA-256 | int |V| | int m | int K | byte tiered rows
 * | UTF word × |V| | float × |V|·m
 * | int tables | (int target start, int entries E, int × (|V|+1) row offsets, int × E neighbours,
 *                 double × |V| outside bounds, UTF table SHA-256) × tables
 * | boolean covariance present | double × m·m scaled covariance Σ (row-major), UTF SHA-256, when present
 * </pre>
 *
 * Big-endian throughout ({@link java.io.DataOutputStream}); strings are Java's modified UTF-8
 * ({@link DataInputStream#readUTF}).
 */
final class ModelFileV1 {
  static final int VERSION = 1;

  private ModelFileV1() {}

  /** Reads the rest of a version 1 file, {@code in} positioned after its magic and version. */
  static DpTextModel read(DataInputStream in, String name) throws IOException {
    try {
      int entries = in.readInt();
      if (entries < 0) {
        throw corrupted(name, "it declares " + entries + " metadata entries");
      }
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
        throw corrupted(name, "it declares " + n + " words × " + dim + " dims, K=" + k);
      }
      String[] words = new String[n];
      for (int i = 0; i < n; i++) {
        words[i] = in.readUTF();
      }
      float[] vectors = readFloats(in, n * dim);
      Embeddings emb = ModelArtifact.embeddings(words, vectors, dim, name);
      ModelArtifact.checkEmbeddingsHash(emb, hash, name);
      int tableCount = in.readInt();
      Map<Integer, NeighbourTable> tables = new LinkedHashMap<>();
      for (int t = 0; t < tableCount; t++) {
        int start = in.readInt();
        int tableEntries = in.readInt();
        if (start < 0 || start >= n || tableEntries < n || (long) tableEntries > (long) n * (n - start)) {
          throw corrupted(name, "neighbour table " + t + " has target start " + start + " and " + tableEntries
              + " entries");
        }
        int[] offsets = readInts(in, n + 1);
        int[] nb = readInts(in, tableEntries);
        double[] bounds = new double[n];
        for (int i = 0; i < n; i++) {
          bounds[i] = in.readDouble();
        }
        NeighbourTable table = ModelArtifact.table(start, offsets, nb, bounds, "neighbour table " + t, name);
        if (!in.readUTF().equals(tableHash(table))) {
          throw corrupted(name, "neighbour table " + t + " does not match its checksum");
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
          throw corrupted(name, "the covariance does not match its checksum");
        }
        model.setCovariance(new EmbeddingCovariance(dim, sigma));
      }
      return model;
    } catch (java.io.UTFDataFormatException e) {
      throw DpTextErrors.error(e, "MODEL_CORRUPTED", "model", name, "what", "a word is not valid modified UTF-8");
    }
  }

  static String doublesHash(double[] values) {
    java.security.MessageDigest md = ModelArtifact.sha256();
    ByteBuffer b8 = ByteBuffer.allocate(8);
    for (double v : values) {
      b8.clear();
      md.update(b8.putDouble(v).array());
    }
    return java.util.HexFormat.of().formatHex(md.digest());
  }

  /** SHA-256 over a table's arrays: a sampler with a corrupted table would be silently inexact. */
  static String tableHash(NeighbourTable t) {
    java.security.MessageDigest md = ModelArtifact.sha256();
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
