package dev.dptext.job.ledger;

import dev.dptext.random.SecretKey;
import dev.dptext.runtime.RowContent;
import java.util.function.BiFunction;

/**
 * Keys a release's {@link RowContent.Sums} into its {@link Release#contentFingerprint} where the release is
 * recorded, under the run's secret key: the sums are a plain function of ids and texts (a single short row
 * could be guessed from them), the fingerprint reveals nothing without the key. Never carries the key
 * itself: on the driver that holds it (a classic run) it keeps a transient reference to the sanitizer's own
 * keyed function; where it travels (a stream's micro-batch function on a Spark Connect server) it carries
 * the key file's path and fingerprint and reads the file there, checking the fingerprint. Where neither
 * works the fingerprint is null and the release is only itself: an over-count, never an under-count.
 */
public final class ContentKey implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  static final String LABEL = "dptext release content v1";

  /** The driver's keyed function (label, message) → tag; lost, on purpose, if this is serialized. */
  private final transient BiFunction<String, byte[], String> held;
  private final String keyFile;
  private final String keyFingerprint;

  private ContentKey(BiFunction<String, byte[], String> held, String keyFile, String keyFingerprint) {
    this.held = held;
    this.keyFile = keyFile;
    this.keyFingerprint = keyFingerprint;
  }

  /** No key to key content with (fresh randomness, a key only a server can read): every release is itself. */
  public static final ContentKey NONE = new ContentKey(null, null, null);

  /**
   * The key of this driver, as a keyed function ({@link SecretKey#tag}), and when the key comes from a file,
   * that file (absolute) and the key's fingerprint, for where this travels.
   */
  public static ContentKey of(BiFunction<String, byte[], String> held, String keyFile, String keyFingerprint) {
    return new ContentKey(held, keyFile, keyFingerprint);
  }

  /** The content fingerprint of {@code sums}, or null when it cannot be keyed here. */
  public String fingerprint(RowContent.Sums sums) {
    if (sums == null) {
      return null;
    }
    if (held != null) {
      return held.apply(LABEL, sums.bytes());
    }
    if (keyFile == null) {
      return null;
    }
    try {
      SecretKey key = SecretKey.fromFile(java.nio.file.Path.of(keyFile));
      return key.fingerprint().equals(keyFingerprint) ? key.tag(LABEL, sums.bytes()) : null;
    } catch (RuntimeException e) {
      return null; // not readable here: the release is only itself
    }
  }

  @Override
  public String toString() {
    return "ContentKey[redacted]";
  }
}
