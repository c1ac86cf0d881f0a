package dev.dptext.settings;

import dev.dptext.errors.DpTextErrors;
import java.util.Locale;

/**
 * Where a row's random stream comes from. The choice decides whether outputs are reproducible and
 * whether equal texts can be linked; there is no silent default.
 */
public enum IdMode {
  /**
   * Recommended. Seed = HMAC(key, purpose, id) with a stable id column: a re-run, a retried or
   * speculative task, any partitioning gives identical output; different rows get independent noise
   * even when their texts are equal. The id must be unique per row, or rows sharing an id share their
   * noise.
   */
  COLUMN,
  /**
   * Seed = HMAC(key, purpose, text). Reproducible without an id, but identical texts get identical
   * outputs, so an observer can tell which sanitized rows came from equal inputs (and repeated texts
   * get no fresh noise: privacy loss does not grow with repetitions, but neither does it average out).
   */
  CONTENT_HASH,
  /**
   * A fresh random key per run: outputs differ on every run and every task retry. Not reproducible: a
   * retried task or a recomputed partition gives other outputs, so downstream joins and audits can see
   * two versions of a row.
   */
  FRESH;

  public static IdMode parse(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT).replace('_', '-');
    return switch (n) {
      case "column", "id", "id-column" -> COLUMN;
      case "content-hash", "content", "hash" -> CONTENT_HASH;
      case "fresh", "fresh-randomness", "random" -> FRESH;
      default -> throw DpTextErrors.error("ID_MODE_UNKNOWN", "value", name);
    };
  }
}
