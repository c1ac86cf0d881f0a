package dev.dptext.knn;

import dev.dptext.errors.DpTextErrors;
import java.io.Serializable;

/**
 * How long each word's neighbour row is. The exact sampler's expected number of rounds for word x
 * is (mass of its envelope) / (mass of its distribution), and the envelope is loose for the words
 * outside the row. Frequent words are both most of the tokens and, sitting near the centre of the
 * embedding space, the ones with the most mass just outside a short row: on GloVe 100-d with 74,000
 * words at ε = 3, a 64-word row costs "the" ~51 rounds, a 1,024-word row ~7, a 4,096-word row ~2.5.
 * So rows are tiered by public frequency rank:
 *
 * <pre>  rank &lt; 1,024: 64·K    rank &lt; 8,192: 8·K    otherwise: K</pre>
 *
 * (each capped at the target set's size). With K = 64 that is 4,096 / 512 / 64 neighbours: 12.1M
 * entries for a 74,000-word vocabulary, 2.6× flat 64-word rows, and SanText at ε = 3 samples 6× faster
 * (docs/benchmarks-history.md, "Sampler hot path"). Memory per table is 4 bytes per entry, plus 8 per
 * entry per ε in a sampler.
 *
 * @param k the base row length K
 * @param tiered whether frequent words get the longer rows above (false: every row has K)
 */
public record RowLengths(int k, boolean tiered) implements Serializable {
  public static final int HEAD_WORDS = 1024;
  public static final int HEAD_FACTOR = 64;
  public static final int MIDDLE_WORDS = 8192;
  public static final int MIDDLE_FACTOR = 8;

  public RowLengths {
    if (k <= 0) {
      // The neighbours setting is checked first; a model file's K reaches here unchecked.
      throw DpTextErrors.error("NEIGHBOUR_TABLE_INVALID", "problem", "the neighbour count K is " + k);
    }
  }

  /** Every row of length K. */
  public static RowLengths uniform(int k) {
    return new RowLengths(k, false);
  }

  /** The frequency-tiered rows described above. */
  public static RowLengths tiered(int k) {
    return new RowLengths(k, true);
  }

  /** The row length of the word of this rank, for a target set of {@code targets} words. */
  public int forRank(int rank, int targets) {
    long len = k;
    if (tiered && rank < HEAD_WORDS) {
      len = (long) k * HEAD_FACTOR;
    } else if (tiered && rank < MIDDLE_WORDS) {
      len = (long) k * MIDDLE_FACTOR;
    }
    return (int) Math.min(len, targets);
  }
}
