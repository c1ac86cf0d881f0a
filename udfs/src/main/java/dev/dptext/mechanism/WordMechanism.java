package dev.dptext.mechanism;

import dev.dptext.knn.SearchTally;
import dev.dptext.random.RandomStream;
import java.io.Serializable;

/**
 * A differentially private map from one vocabulary word to another: the sampler. What the mechanism
 * is (name, parameters, guarantee, metric) is its {@link MechanismDefinition}.
 *
 * <p>Implementations are immutable, hold everything they need (they are broadcast to executors as
 * they are) and draw all their randomness from the {@link RandomStream} they are given, so a seeded
 * stream reproduces their output exactly.
 */
public interface WordMechanism extends Serializable {

  /**
   * Draws the output word for the input word of rank {@code word}.
   *
   * @return the rank of the output word
   */
  int sanitize(int word, RandomStream random);

  /**
   * Draws outputs for the first {@code count} words of {@code words}, in order, into {@code out}.
   * The same stream gives the same outputs however the caller batches; mechanisms that map noisy
   * vectors back to words override this to search a whole batch with one matrix product.
   */
  default void sanitize(int[] words, int count, RandomStream random, int[] out) {
    for (int i = 0; i < count; i++) {
      out[i] = sanitize(words[i], random);
    }
  }

  /**
   * As {@link #sanitize(int[], int, RandomStream, int[])}, counting in {@code tally} (may be null) how an
   * approximate nearest-word search did against exact search on the queries it sampled; mechanisms
   * without such a search ignore it. Never changes the outputs.
   */
  default void sanitize(int[] words, int count, RandomStream random, int[] out, SearchTally tally) {
    sanitize(words, count, random, out);
  }

  /**
   * The first rank of the output vocabulary: outputs are always in {@code [outputStart(), |V|)}.
   * The text layer draws replacements for out-of-vocabulary tokens from the same range.
   */
  int outputStart();

  /** A short name, e.g. {@code santext+}. */
  String name();


}
