package dev.dptext.knn;

import dev.dptext.config.Check;
import java.util.Locale;

/**
 * How the embedding-noise mechanisms find the nearest words of a noisy vector: {@link #EXACT} (the
 * reference, {@link NearestWords}) or {@link #HNSW} (an approximate graph index, {@link
 * HnswNearestWords}). The search reads only the noisy vector and the public embeddings, so either keeps
 * the guarantee; the approximate one changes which word comes out where it misses a neighbour.
 */
public enum NearestSearch {
  /** Exact search: what brute force returns, ties to the lower rank. The default. */
  EXACT,
  /** Apache Lucene's HNSW graph, built once per JVM and model, candidates re-ranked exactly. */
  HNSW;

  public static NearestSearch parse(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT);
    return switch (n) {
      case "exact" -> EXACT;
      case "hnsw", "approximate" -> HNSW;
      // The nearestSearch setting's own type parses with this method, so its refusal is the setting's message.
      default -> throw Check.failure("nearestSearch", "exact or hnsw", name, null);
    };
  }
}
