package dev.dptext.sanitizer;

import dev.dptext.knn.SearchTally;

/**
 * A run's token statistics: tokens, tokens changed, out-of-vocabulary tokens, and the approximate search's
 * recall checks. Summed by accumulators on a classic session ({@code dev.dptext.spark.TokenAccumulators}),
 * by {@code Dataset.observe} on a Spark Connect session ({@code dev.dptext.runtime.ServerSanitizer}).
 */
public interface TokenTotals {
  long tokens();

  long changed();

  long outOfVocabulary();

  /** The approximate nearest-word search's sampled checks against exact search (all zero with exact search). */
  SearchTally search();
}
