package dev.dptext.random;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Derives each row's random stream from the secret key: seed = HMAC-SHA256(key, purpose ‖ row id).
 *
 * <p>HMAC-SHA256 is a pseudo-random function under the key, so without the key the seeds are
 * unpredictable, and with it they are reproducible: the same key, purpose and id give the same stream
 * whatever the partitioning, executor, task retry or speculative copy. The {@code purpose} (for
 * example the output column) separates streams of the same row used for different things.
 *
 * <p>The message is length-prefixed so that no two (purpose, id) pairs encode to the same bytes.
 * The 256-bit output seeds {@link RandomStream} directly.
 *
 * <p>Serializable so it can travel inside a broadcast; the {@link Mac} is rebuilt per thread.
 */
public final class RowSeeder implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final String ALGORITHM = "HmacSHA256";
  private static final byte[] DOMAIN = "dptext/row-seed/v1".getBytes(StandardCharsets.US_ASCII);

  private final SecretKey key;
  private final byte[] purpose;
  private transient ThreadLocal<Mac> macs;

  public RowSeeder(SecretKey key, String purpose) {
    // Bug checks: the run's key is resolved (or refused, KEY_MISSING) and the purpose setting defaulted before.
    if (key == null) {
      throw new IllegalStateException("key must not be null");
    }
    if (purpose == null) {
      throw new IllegalStateException("purpose must not be null");
    }
    this.key = key;
    this.purpose = purpose.getBytes(StandardCharsets.UTF_8);
  }

  /** The random stream of the row with this id. */
  public RandomStream streamFor(String rowId) {
    return streamFor(rowId.getBytes(StandardCharsets.UTF_8));
  }

  /** The random stream of the row whose id (or content, for content-hash seeding) is these bytes. */
  public RandomStream streamFor(byte[] rowId) {
    Mac mac = mac();
    mac.update(DOMAIN);
    mac.update(ByteBuffer.allocate(4).putInt(purpose.length).array());
    mac.update(purpose);
    mac.update(rowId);
    ByteBuffer out = ByteBuffer.wrap(mac.doFinal());
    return new RandomStream(out.getLong(), out.getLong(), out.getLong(), out.getLong());
  }

  private Mac mac() {
    if (macs == null) {
      synchronized (this) {
        if (macs == null) {
          macs = ThreadLocal.withInitial(this::newMac);
        }
      }
    }
    return macs.get();
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(key.material(), ALGORITHM));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable in this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "RowSeeder[key redacted]";
  }
}
