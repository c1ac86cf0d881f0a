package dev.dptext.model;

import dev.dptext.embedding.Embeddings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 over the vocabulary (in rank order), the dimension and the vectors' IEEE bits. */
final class EmbeddingsHash {
  private final MessageDigest md;

  /** Starts the hash of a vocabulary of {@code size} words of dimension {@code dim}. */
  EmbeddingsHash(int size, int dim) {
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException ex) {
      throw new IllegalStateException(ex);
    }
    md.update(ByteBuffer.allocate(8).putInt(size).putInt(dim).array());
  }

  /** The words, in rank order: all of them before any vector. */
  void word(String w) {
    byte[] b = w.getBytes(StandardCharsets.UTF_8);
    md.update(ByteBuffer.allocate(4).putInt(b.length).array());
    md.update(b);
  }

  /** Vector values, in rank order, after every word. */
  void vectors(float[] v, int from, int count) {
    ByteBuffer buf = ByteBuffer.allocate(4 * 8192);
    for (int i = 0; i < count; i += 8192) {
      buf.clear();
      int n = Math.min(8192, count - i);
      buf.asFloatBuffer().put(v, from + i, n);
      md.update(buf.array(), 0, 4 * n);
    }
  }

  String hex() {
    return HexFormat.of().formatHex(md.digest());
  }

  static String of(Embeddings e) {
    EmbeddingsHash h = new EmbeddingsHash(e.size(), e.dim());
    for (String w : e.rawWords()) {
      h.word(w);
    }
    h.vectors(e.rawVectors(), 0, e.rawVectors().length);
    return h.hex();
  }
}
