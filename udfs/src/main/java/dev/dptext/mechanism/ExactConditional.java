package dev.dptext.mechanism;

/**
 * A mechanism whose output distribution can be written down exactly, for evaluation (the empirical
 * privacy of {@code dev.dptext.evaluation.EmpiricalPrivacy}); the others are estimated by drawing.
 */
public interface ExactConditional {
  /** f(y | word) = P[M(word) = y] for every vocabulary rank y, computed in double precision. */
  double[] conditional(int word);
}
