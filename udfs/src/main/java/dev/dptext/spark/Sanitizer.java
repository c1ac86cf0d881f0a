package dev.dptext.spark;

import dev.dptext.random.RandomStream;
import dev.dptext.random.RowSeeder;
import dev.dptext.text.TextSanitizer;
import dev.dptext.text.TokenCounts;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;

/**
 * What executors receive in one broadcast: the text sanitizer (model and mechanism) and the row
 * seeder (the secret key). Deriving the row stream here is the only place ids meet the key.
 */
public final class Sanitizer implements Serializable {
  private static final long serialVersionUID = 1L;

  private final TextSanitizer text;
  private final RowSeeder seeder;
  private final IdMode idMode;

  public Sanitizer(TextSanitizer text, RowSeeder seeder, IdMode idMode) {
    this.text = text;
    this.seeder = seeder;
    this.idMode = idMode;
  }


  public IdMode idMode() {
    return idMode;
  }

  /**
   * Sanitizes one row's text.
   *
   * @param id the row id (any value; its string form is used) — ignored unless the id mode is COLUMN
   * @throws IllegalArgumentException when the id mode is COLUMN and the id is null (message carries
   *     no row content)
   */
  public String sanitize(String value, Object id, TokenCounts counts) {
    if (value == null) {
      return null;
    }
    return text.sanitize(value, streamFor(value, id), counts);
  }

  /** The text sanitizer: vocabulary, mechanism, OOV and case policies. */
  public TextSanitizer text() {
    return text;
  }

  /**
   * The row's random stream: from the id (id mode column), the text (content hash) or fresh bytes.
   * The only place ids meet the key; the partitioned path starts each row here too.
   */
  public RandomStream streamFor(String value, Object id) {
    return
        switch (idMode) {
          case COLUMN -> {
            if (id == null) {
              throw new IllegalArgumentException(
                  "dptext: a row has a null id; every row needs a non-null, unique id in the id "
                      + "column (or choose id mode content-hash)");
            }
            yield seeder.streamFor(idBytes(id));
          }
          case CONTENT_HASH -> seeder.streamFor(value.getBytes(StandardCharsets.UTF_8));
          case FRESH -> seeder.streamFor(freshBytes());
        };
  }

  private static final ThreadLocal<java.security.SecureRandom> FRESH_SOURCE =
      ThreadLocal.withInitial(java.security.SecureRandom::new);

  private static byte[] freshBytes() {
    byte[] b = new byte[16];
    FRESH_SOURCE.get().nextBytes(b);
    return b;
  }

  /** The canonical bytes of an id: raw for binary ids, else UTF-8 of its string form. */
  static byte[] idBytes(Object id) {
    if (id instanceof byte[] b) {
      return b;
    }
    if (id instanceof java.math.BigDecimal d) {
      return d.stripTrailingZeros().toPlainString().getBytes(StandardCharsets.UTF_8);
    }
    return id.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "Sanitizer[" + text.mechanism().name() + ", key redacted]";
  }
}
