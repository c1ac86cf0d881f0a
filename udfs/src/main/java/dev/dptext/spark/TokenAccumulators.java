package dev.dptext.spark;

import dev.dptext.text.TokenCounts;
import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * Spark accumulators for token statistics (tokens, tokens changed, out-of-vocabulary tokens), summed
 * over executors. Like all accumulators updated inside transformations, a recomputed partition may
 * count twice; row counts, which the job checks, are computed exactly by other means.
 */
public final class TokenAccumulators implements Serializable {
  private static final long serialVersionUID = 1L;

  private final LongAccumulator tokens;
  private final LongAccumulator changed;
  private final LongAccumulator oov;

  public TokenAccumulators(SparkContext sc) {
    this.tokens = sc.longAccumulator("dptext tokens");
    this.changed = sc.longAccumulator("dptext tokens changed");
    this.oov = sc.longAccumulator("dptext tokens out of vocabulary");
  }

  public void add(TokenCounts c) {
    tokens.add(c.tokens);
    changed.add(c.changed);
    oov.add(c.outOfVocabulary);
  }

  public long tokens() {
    return tokens.value();
  }

  public long changed() {
    return changed.value();
  }

  public long outOfVocabulary() {
    return oov.value();
  }
}
