package dev.dptext.mechanism;

import java.io.Serializable;

/**
 * One input word x's rejection envelope for the exponential mechanism (see
 * {@link ExponentialNeighbourSampler}): its candidate row H_x (nearest first), the candidates'
 * cumulative excess weights normalised to 1, P(uniform branch) and the outside bound b_x. The
 * partitioned path builds it from x's row of a candidate table and carries it with the row's work.
 */
public record CandidateEnvelope(int[] neighbours, double[] cumulativeExcess, double uniformBranch, double bound)
    implements Serializable {}
