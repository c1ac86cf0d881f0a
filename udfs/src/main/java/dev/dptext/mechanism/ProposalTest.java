package dev.dptext.mechanism;

/**
 * The one fact about the vocabulary's geometry that the exponential sampler's uniform branch needs:
 * whether the proposal y lies strictly closer to the input word x than a limit. The broadcast path
 * answers from the embeddings in memory; the partitioned path from a vector fetched from y's shard,
 * with the same arithmetic ({@link dev.dptext.embedding.Embeddings#squaredDistanceBelow(float[], int,
 * float[], int, int, double)}), so both give the same answers.
 */
@FunctionalInterface
public interface ProposalTest {
  /** Whether d(x, y)² &lt; {@code squaredLimit}. */
  boolean closerThan(int y, double squaredLimit);
}
