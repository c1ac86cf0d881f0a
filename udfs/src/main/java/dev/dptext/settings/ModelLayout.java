package dev.dptext.settings;

import dev.dptext.errors.DpTextErrors;
import java.util.Locale;

/**
 * How a model is held while sanitizing (and written by build-model): broadcast whole to every
 * executor, or kept as vocabulary shards on the executors ({@code dev.dptext.classic.partitioned}). Both give
 * the same output for the same model, key, ids and settings.
 */
public enum ModelLayout {
  /**
   * Partitioned when the vectors exceed {@link #AUTO_PARTITIONED_BYTES} (a partitioned model when
   * sanitizing, the embeddings file when building), else broadcast.
   */
  AUTO,
  /** Vocabulary shards on the executors: driver and executors never hold all vectors. */
  PARTITIONED,
  /** The whole model in every executor's memory: fastest while it fits. */
  BROADCAST;

  /**
   * 1 GiB of float vectors (e.g. 900k words × 300 d): above it a broadcast costs every executor that
   * much heap twice over (deserialized model and nearest-word layout), more than common executor sizes
   * spare; below it the broadcast path is faster (no shuffles).
   */
  public static final long AUTO_PARTITIONED_BYTES = 1L << 30;

  public static ModelLayout parse(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT);
    return switch (n) {
      case "auto" -> AUTO;
      case "partitioned", "sharded", "true" -> PARTITIONED;
      case "broadcast", "false" -> BROADCAST;
      default -> throw DpTextErrors.error("MODEL_LAYOUT_UNKNOWN", "value", name);
    };
  }

  /** Whether a model of {@code vectorBytes} bytes of vectors is held partitioned under this choice. */
  public boolean partitioned(long vectorBytes) {
    return this == PARTITIONED || (this == AUTO && vectorBytes > AUTO_PARTITIONED_BYTES);
  }
}
