package dev.dptext.mechanism;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.random.RandomStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * BRR, binary embeddings over randomized response (Carvalho et al.): take the word's n-bit code
 * ({@link BinaryCodes}), keep each bit with probability e^ε/(1+e^ε) and flip it otherwise, output
 * the Hamming-nearest word (exact; ties to the lower rank). The input word can be the output.
 *
 * <p><b>Guarantee.</b> ε·d_H metric DP per token, d_H the Hamming distance between the words' codes:
 * P(y | x) ≤ exp(ε·d_H(c(x), c(x')))·P(y | x') (randomized response is ε-DP per bit; the bits are
 * independent, so the flipped code is ε·d_H-private; the nearest-word step is post-processing).
 * Next to the Euclidean mechanisms: d_H ranges over 0..n (n = 256 by default) while Euclidean
 * distances in GloVe 100-d are ~1–10, so equal ε are not comparable — use the privacy ratio
 * ε_B = ε_A·P_dA/P_dB of the paper's §5 to match a Euclidean mechanism's bound. Two words with the
 * same code are indistinguishable. <b>Not covered:</b> token count and layout, verbatim opt-ins.
 */
public final class BrrMechanism implements WordMechanism {
  private static final long serialVersionUID = 1L;

  private final BinaryCodes codes;
  private final double epsilon;
  private final double flipProbability;

  public BrrMechanism(BinaryCodes codes, double epsilon) {
    if (!(epsilon > 0) || Double.isInfinite(epsilon)) {
      throw new IllegalArgumentException("epsilon must be positive and finite, got " + epsilon);
    }
    this.codes = codes;
    this.epsilon = epsilon;
    this.flipProbability = 1 / (1 + Math.exp(epsilon));
  }

  /** 1/(1+e^ε), the probability that a bit is flipped. */
  public double flipProbability() {
    return flipProbability;
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    long[] q = new long[codes.longs()];
    flip(word, random, q);
    return codes.nearest(q, 0);
  }

  /** Writes word's code with each bit flipped independently with probability 1/(1+e^ε). */
  void flip(int word, RandomStream random, long[] out) {
    codes.copyCode(word, out, 0);
    int bits = codes.bits();
    for (int b = 0; b < bits; b++) {
      if (random.nextDouble() < flipProbability) {
        out[b >>> 6] ^= 1L << (b & 63);
      }
    }
  }

  @Override
  public int outputStart() {
    return 0;
  }

  @Override
  public String name() {
    return "brr";
  }

  @Override
  public Map<String, Object> parameters() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("epsilon", epsilon);
    p.put("bits", codes.bits());
    return p;
  }

  @Override
  public String guarantee() {
    return "BRR: " + epsilon + "·d_Hamming metric DP per token over " + codes.bits()
        + "-bit codes (randomized response per bit, Hamming-nearest word); token count, layout and "
        + "verbatim opt-ins are not covered";
  }
}
