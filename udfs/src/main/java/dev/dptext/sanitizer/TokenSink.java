package dev.dptext.sanitizer;

import dev.dptext.text.TokenCounts;
import java.io.Serializable;

/**
 * Where the tasks of a run add each row's {@link TokenCounts}: serialized into the tasks with the row
 * function that fills it. Its sums are the run's {@link TokenTotals}.
 *
 * <p>Why an interface: the code that adds the counts (the row function, the partitioned path) sits below
 * the public API whose class holds them ({@code dev.dptext.spark.TokenAccumulators}, which users
 * create and hand to {@code DpText.Builder.countTokens}).
 */
public interface TokenSink extends Serializable {
  /** Adds one row's counts. */
  void add(TokenCounts counts);
}
