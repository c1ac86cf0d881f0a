package dev.dptext.model;

import dev.dptext.embedding.Embeddings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 over the vocabulary (in rank order), the dimension and the vectors' IEEE bits. */
final class EmbeddingsHash {
  private EmbeddingsHash() {}

  static String of(Embeddings e) {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException ex) {
      throw new IllegalStateException(ex);
    }
    ByteBuffer header = ByteBuffer.allocate(8).putInt(e.size()).putInt(e.dim());
    md.update(header.array());
    for (String w : e.rawWords()) {
      byte[] b = w.getBytes(StandardCharsets.UTF_8);
      md.update(ByteBuffer.allocate(4).putInt(b.length).array());
      md.update(b);
    }
    float[] v = e.rawVectors();
    ByteBuffer buf = ByteBuffer.allocate(4 * 8192);
    for (int i = 0; i < v.length; i += 8192) {
      buf.clear();
      int n = Math.min(8192, v.length - i);
      buf.asFloatBuffer().put(v, i, n);
      md.update(buf.array(), 0, 4 * n);
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
