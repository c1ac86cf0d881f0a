package dev.dptext.model;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * The version 1 writer as dptext had it before version 2 (big-endian {@link DataOutputStream}, words in
 * modified UTF-8, a SHA-256 per table and for the covariance), kept here so that tests can make the files
 * users still have, and check they read.
 */
final class V1Writer {
  private V1Writer() {}

  static byte[] write(DpTextModel model) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.write("DPTEXT-MODEL".getBytes(StandardCharsets.US_ASCII));
    out.writeInt(1);
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
    for (float f : emb.rawVectors()) {
      out.writeFloat(f);
    }
    Map<Integer, NeighbourTable> tables = model.tables();
    out.writeInt(tables.size());
    for (NeighbourTable t : tables.values()) {
      out.writeInt(t.targetStart());
      out.writeInt(t.rawNeighbours().length);
      for (int x : t.rawOffsets()) {
        out.writeInt(x);
      }
      for (int x : t.rawNeighbours()) {
        out.writeInt(x);
      }
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
    return bytes.toByteArray();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String doublesHash(double[] values) {
    MessageDigest md = sha256();
    for (double v : values) {
      md.update(ByteBuffer.allocate(8).putDouble(v).array());
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static String tableHash(NeighbourTable t) {
    MessageDigest md = sha256();
    md.update(ByteBuffer.allocate(4).putInt(t.targetStart()).array());
    for (int[] array : new int[][] {t.rawOffsets(), t.rawNeighbours()}) {
      for (int x : array) {
        md.update(ByteBuffer.allocate(4).putInt(x).array());
      }
    }
    for (double b : t.rawOutsideBounds()) {
      md.update(ByteBuffer.allocate(8).putDouble(b).array());
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
