package dev.dptext.sanitizer;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.knn.NearestSearch;
import dev.dptext.mechanism.NearestWordMechanism;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.random.RowSeeder;
import dev.dptext.random.SecretKey;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.settings.Settings;
import dev.dptext.text.OovPolicy;
import dev.dptext.text.TextSanitizer;
import dev.dptext.text.TokenCounts;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What executors receive in one broadcast: the text sanitizer (model and mechanism) and the row
 * seeder (the secret key). Deriving the row stream here is the only place ids meet the key.
 */
public final class Sanitizer implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(Sanitizer.class);

  private final TextSanitizer text;
  private final RowSeeder seeder;
  private final IdMode idMode;

  public Sanitizer(TextSanitizer text, RowSeeder seeder, IdMode idMode) {
    this.text = text;
    this.seeder = seeder;
    this.idMode = idMode;
  }


  /** Builds the mechanism over {@code model} and the sanitizer of {@code o}'s settings, with {@code key}. */
  public static Sanitizer build(DpTextOptions o, DpTextModel model, SecretKey key) {
    o.checkNearestSearch();
    WordMechanism mechanism = o.mechanismSpec().build(model);
    if (o.nearestSearch() == NearestSearch.HNSW) {
      // Only the embedding-noise mechanisms pass the check above, and they all search nearest words.
      mechanism = ((NearestWordMechanism) mechanism).withApproximateSearch(model.hnswNearestWords());
    }
    TextSanitizer text = new TextSanitizer(model.embeddings(), mechanism, o.oovPolicy(), o.get(Settings.OOV_PLACEHOLDER),
        o.casePolicy());
    if (o.oovPolicy() == OovPolicy.KEEP) {
      LOG.warn("dptext oov=keep: out-of-vocabulary tokens are emitted verbatim, without protection");
    }
    return new Sanitizer(text, new RowSeeder(key, o.get(Settings.PURPOSE)), o.idMode());
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
              throw DpTextErrors.error("ID_NULL");
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

  /**
   * The canonical bytes of an id: raw for binary ids, else UTF-8 of its string form. A {@code TIMESTAMP}
   * id is an instant: its form is the instant's ISO-8601 text in UTC ({@code 2026-01-01T08:00:00Z}, as
   * {@link java.time.Instant#toString}), the same whether Spark hands it over as a {@code Timestamp} or an
   * {@code Instant} and whatever the JVM's time zone ({@code Timestamp.toString} is local time, so two
   * executors in different zones would seed one row differently).
   */
  public static byte[] idBytes(Object id) {
    if (id instanceof byte[] b) {
      return b;
    }
    if (id instanceof java.sql.Timestamp t) {
      return t.toInstant().toString().getBytes(StandardCharsets.UTF_8);
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
