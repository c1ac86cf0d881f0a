package dev.dptext.model;

import dev.dptext.embedding.Embeddings;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.errors.DpTextException;
import dev.dptext.knn.NeighbourTable;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The one-file model a {@code build-model} step saves, so that a nightly job loads a model instead of
 * rebuilding it: the vocabulary, its vectors, the neighbour tables and the covariance.
 *
 * <p>{@link #write} writes format version {@value DpTextModel#FORMAT_VERSION}, specified in
 * {@code docs/model-format.md} so that any language can read it (dptext's Python engine does, without a
 * JVM): {@code "DPTEXT-MODEL"}, the version as a little-endian 32-bit integer, a JSON header, then
 * little-endian arrays, 64-byte aligned, each with its SHA-256 ({@link ModelFileV2}). {@link #read} reads
 * that and version 1, the big-endian layout dptext wrote before ({@link ModelFileV1}); the 4 bytes after
 * the magic tell them apart (version 1 is the big-endian integer 1: {@code 00 00 00 01}; version 2 the
 * little-endian {@code 02 00 00 00}).
 *
 * <p>Reading checks the magic, the version, the checksums and the embeddings hash, so a truncated,
 * corrupted or foreign file is an error naming the file (never its content), not a silently different
 * model. The partitioned model ({@link PartitionedModel}) is a directory of its own format, not this file.
 */
public final class ModelArtifact {
  static final byte[] MAGIC = "DPTEXT-MODEL".getBytes(StandardCharsets.US_ASCII);

  private ModelArtifact() {}

  /** Writes {@code model} in format version {@value DpTextModel#FORMAT_VERSION}; does not close the stream. */
  public static void write(DpTextModel model, OutputStream stream) throws IOException {
    BufferedOutputStream out = new BufferedOutputStream(stream, 1 << 16);
    ModelFileV2.write(model, out);
    out.flush();
  }

  /**
   * Reads a model file of format version 1 or 2.
   *
   * @param name the file's name, for error messages
   */
  public static DpTextModel read(InputStream stream, String name) throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(stream, 1 << 16));
    try {
      byte[] magic = new byte[MAGIC.length];
      in.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw DpTextErrors.error("MODEL_NOT_A_DPTEXT_MODEL", "model", name);
      }
      byte[] version = new byte[4];
      in.readFully(version);
      int bigEndian = ByteBuffer.wrap(version).getInt();
      int littleEndian = ByteBuffer.wrap(version).order(ByteOrder.LITTLE_ENDIAN).getInt();
      if (bigEndian == ModelFileV1.VERSION) {
        return ModelFileV1.read(in, name);
      }
      if (littleEndian == ModelFileV2.VERSION) {
        return ModelFileV2.read(in, name);
      }
      // Neither: name it as its writer most likely meant it (a small number in either byte order).
      long shown = Integer.toUnsignedLong(
          Integer.compareUnsigned(bigEndian, littleEndian) < 0 ? bigEndian : littleEndian);
      throw DpTextErrors.error("MODEL_VERSION_UNSUPPORTED", "model", name, "version", shown, "supported",
          "versions " + ModelFileV1.VERSION + " and " + ModelFileV2.VERSION);
    } catch (EOFException e) {
      throw DpTextErrors.error(e, "MODEL_TRUNCATED", "model", name, "what", "");
    }
  }

  /**
   * MODEL_CORRUPTED: "Model file X is corrupted: what. Rebuild it ...". {@code what} is written by dptext's code
   * (a position, a count, an array's name), never a word of the file.
   */
  static IllegalArgumentException corrupted(String name, String what) {
    return DpTextErrors.error("MODEL_CORRUPTED", "model", name, "what", what);
  }

  /** The embeddings, or a corrupted-file error (a duplicate word) that does not quote the word. */
  static Embeddings embeddings(String[] words, float[] vectors, int dim, String name) {
    try {
      return new Embeddings(words, vectors, dim);
    } catch (IllegalArgumentException e) {
      throw corrupted(name, "its vocabulary is not a list of distinct words with a vector each");
    }
  }

  static void checkEmbeddingsHash(Embeddings emb, String hash, String name) {
    String actual = EmbeddingsHash.of(emb);
    if (!actual.equals(hash)) {
      throw corrupted(name, "its embeddings hash to " + actual + ", the file says " + hash);
    }
  }

  /** A neighbour table, or a corrupted-file error saying why it is not one. */
  static NeighbourTable table(int start, int[] offsets, int[] neighbours, double[] bounds, String what,
      String name) {
    try {
      return new NeighbourTable(start, offsets, neighbours, bounds);
    } catch (DpTextException e) { // NEIGHBOUR_TABLE_INVALID: its problem is the file's corruption
      throw corrupted(name, what + " (" + e.parameters().getOrDefault("problem", e.errorClass()) + ")");
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
