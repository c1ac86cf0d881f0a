package dev.dptext.settings;

import dev.dptext.errors.DpTextErrors;
import java.util.Locale;

/**
 * How the model and mechanism reach the executors.
 *
 * <p>Why two ways: broadcasting needs the driver's {@code SparkContext}, which Spark Connect clients,
 * Databricks serverless and standard access mode do not give to user code. There, each executor JVM
 * loads the model itself from a path every executor can read (a file, a cloud or Unity Catalog volume
 * path), once, and checks it against the SHA-256 the driver computed, so every executor uses the same
 * model or the task fails.
 */
public enum ModelDistribution {
  /** The driver builds the model and mechanism once and broadcasts them (the default). */
  BROADCAST,
  /**
   * The driver only hashes the model file; each executor JVM loads it from the path lazily, once,
   * verifies the SHA-256, and builds the mechanism there. Needs a model path (or {@code default}).
   */
  PATH;

  public static ModelDistribution parse(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT);
    return switch (n) {
      case "broadcast" -> BROADCAST;
      case "path" -> PATH;
      default -> throw DpTextErrors.error("MODEL_DISTRIBUTION_UNKNOWN", "value", name);
    };
  }
}
