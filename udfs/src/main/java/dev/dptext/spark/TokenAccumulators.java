package dev.dptext.spark;

import dev.dptext.classic.LongCounter;
import dev.dptext.knn.SearchTally;
import dev.dptext.sanitizer.TokenSink;
import dev.dptext.sanitizer.TokenTotals;
import dev.dptext.text.TokenCounts;
import java.io.Serializable;
import org.apache.spark.sql.SparkSession;

/**
 * Spark accumulators for token statistics (tokens, tokens changed, out-of-vocabulary tokens, and the
 * approximate nearest-word search's recall checks), summed
 * over executors. Like all accumulators updated inside transformations, a recomputed partition may
 * count twice; row counts, which the job checks, are computed exactly by other means.
 */
public final class TokenAccumulators implements Serializable, TokenSink, TokenTotals {
  private static final long serialVersionUID = 1L;

  private final LongCounter tokens;
  private final LongCounter changed;
  private final LongCounter oov;
  private final LongCounter recallQueries;
  private final LongCounter recallWanted;
  private final LongCounter recallFound;

  /**
   * Accumulators registered with the session's Spark context: classic sessions only (a Spark Connect
   * client has no accumulators).
   */
  public TokenAccumulators(SparkSession spark) {
    this.tokens = LongCounter.register(spark, "dptext tokens");
    this.changed = LongCounter.register(spark, "dptext tokens changed");
    this.oov = LongCounter.register(spark, "dptext tokens out of vocabulary");
    this.recallQueries = LongCounter.register(spark, "dptext approximate search: queries checked");
    this.recallWanted = LongCounter.register(spark, "dptext approximate search: neighbours wanted");
    this.recallFound = LongCounter.register(spark, "dptext approximate search: neighbours found");
  }

  @Override
  public void add(TokenCounts c) {
    tokens.add(c.tokens);
    changed.add(c.changed);
    oov.add(c.outOfVocabulary);
    if (c.search.queries > 0) {
      recallQueries.add(c.search.queries);
      recallWanted.add(c.search.wanted);
      recallFound.add(c.search.found);
    }
  }

  /**
   * The approximate nearest-word search's sampled checks against exact search, summed (all zero with
   * exact search): {@link SearchTally#recall()} is its recall@k.
   */
  @Override
  public SearchTally search() {
    SearchTally t = new SearchTally();
    t.queries = recallQueries.value();
    t.wanted = recallWanted.value();
    t.found = recallFound.value();
    return t;
  }

  @Override
  public long tokens() {
    return tokens.value();
  }

  @Override
  public long changed() {
    return changed.value();
  }

  @Override
  public long outOfVocabulary() {
    return oov.value();
  }
}
