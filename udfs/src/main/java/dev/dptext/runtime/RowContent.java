package dev.dptext.runtime;

import dev.dptext.sanitizer.Sanitizer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * What a row's output depends on besides the key and the settings: the bytes its stream is seeded with
 * ({@link Sanitizer#idBytes} of its id, or its text for content-hash seeding) and the exact text handed to
 * the mechanism. A UDF of the same shape as the sanitizer's ({@code (text, id)}, the id as Spark hands it
 * over), so it sees the very objects the sanitizer sees: whatever changes how a row is read, typed or
 * seeded changes its content.
 *
 * <p>Each row gives {@value #LANES} lanes of 32 bits of SHA-256 over its seed bytes and text (length-framed);
 * the ledger sums every lane over a release's rows ({@link Sums}): an order-independent digest of the
 * multiset of rows (sums of 32-bit lanes in 64-bit integers cannot overflow below 2^31 rows per group).
 * The sums are a plain function of ids and texts: they never leave the driver, which keys them under the
 * secret key before anything is recorded.
 */
public final class RowContent implements UDF2<String, Object, long[]> {
  private static final long serialVersionUID = 1L;

  /** The lanes of a row's content. */
  public static final int LANES = 4;

  /** What {@link #call} returns: the lanes, or null for a row without text (nothing is sanitized). */
  public static final DataType TYPE = DataTypes.createArrayType(DataTypes.LongType, false);

  private static final byte[] DOMAIN = "dptext/row-content/v1".getBytes(StandardCharsets.US_ASCII);

  /**
   * The column of each row's content lanes: {@code text} and {@code id} (null without an id column) as the
   * sanitizer reads them. On a Spark Connect client the server is first made able to load this class.
   */
  public static org.apache.spark.sql.Column of(org.apache.spark.sql.SparkSession spark,
      org.apache.spark.sql.Column text, org.apache.spark.sql.Column id) {
    if (!dev.dptext.classic.Classic.is(spark)) {
      ServerClasses.ensure(spark);
    }
    return org.apache.spark.sql.functions.udf(new RowContent(), TYPE).withName("dptext_row_content").apply(text,
        id != null ? id : org.apache.spark.sql.functions.lit(null).cast(DataTypes.StringType));
  }

  @Override
  public long[] call(String text, Object id) {
    if (text == null) {
      return null;
    }
    byte[] seed = id == null ? new byte[0] : Sanitizer.idBytes(id);
    MessageDigest sha = sha256();
    sha.update(DOMAIN);
    sha.update((byte) (id == null ? 0 : 1));
    sha.update(ByteBuffer.allocate(4).putInt(seed.length).array());
    sha.update(seed);
    sha.update(text.getBytes(StandardCharsets.UTF_8));
    ByteBuffer h = ByteBuffer.wrap(sha.digest());
    // A primitive array: what both a classic session's and a Spark Connect server's encoders take for array<bigint>.
    long[] lanes = new long[LANES];
    for (int i = 0; i < LANES; i++) {
      lanes[i] = Integer.toUnsignedLong(h.getInt());
    }
    return lanes;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available in this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "dptext.RowContent";
  }

  /**
   * The lanes of a release's rows, summed (mod 2^64), and how many rows have text: equal for two releases
   * that sanitized the same multiset of (seed bytes, text), and different otherwise but with probability
   * about 2^-128. Raw material: {@link #bytes} is for keying only, and {@link #toString} shows nothing.
   */
  public record Sums(long rows, long[] lanes) implements java.io.Serializable {
    /** Nothing summed yet. */
    public static Sums empty() {
      return new Sums(0, new long[LANES]);
    }

    /** These sums and {@code other}'s (two groups of rows). */
    public Sums plus(long rows, long[] lanes) {
      long[] sum = this.lanes.clone();
      for (int i = 0; i < LANES; i++) {
        sum[i] += lanes[i];
      }
      return new Sums(this.rows + rows, sum);
    }

    /** The bytes to key: the row count, then each lane. */
    public byte[] bytes() {
      ByteBuffer b = ByteBuffer.allocate(8 * (LANES + 1)).putLong(rows);
      for (long l : lanes) {
        b.putLong(l);
      }
      return b.array();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Sums s && s.rows == rows && java.util.Arrays.equals(s.lanes, lanes);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(rows) * 31 + java.util.Arrays.hashCode(lanes);
    }

    @Override
    public String toString() {
      return "RowContent.Sums[" + rows + " rows, digest withheld]";
    }
  }
}
