package dev.dptext.mechanism;

/**
 * A mechanism drawing from the exponential mechanism over a target rank range with
 * {@link ExponentialNeighbourSampler} (SanText, SanText+), seen from the partitioned path: there the
 * input word's candidate row and the proposals' vectors come from vocabulary shards, and the draws
 * must be exactly the broadcast path's. {@link #sample} is the very code {@link #sanitize(int,
 * dev.dptext.random.RandomStream)} runs, with the geometry supplied from outside.
 */
public interface ExponentialMechanism extends WordMechanism {
  /** ε. */
  double epsilon();

  /** The first rank of the target set (0 for SanText, the first sensitive rank for SanText+). */
  int targetStart();

  /** The envelope of input word x from its candidate row and outside bound (as stored in the model). */
  CandidateEnvelope envelope(int[] neighbours, double[] distances, double bound);

  /**
   * Draws the output for {@code word} from {@code random} exactly as {@link #sanitize(int,
   * dev.dptext.random.RandomStream)} does, with x's envelope given and every uniform proposal's
   * distance asked of {@code test}.
   */
  int sample(int word, CandidateEnvelope envelope, ProposalTest test, dev.dptext.random.RandomStream random);
}
