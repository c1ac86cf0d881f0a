package dev.dptext.mechanism;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.random.RandomStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * SanText+ (Yue et al. 2021, §4): only words judged sensitive are protected at full strength.
 *
 * <ul>
 *   <li>Sensitive set V_S: the fraction {@code w} of least frequent words, by public frequency rank
 *       (the embedding file's order): |V_S| = ⌊w·|V|⌋, the ranks [|V| − |V_S|, |V|).
 *   <li>Output set V_P = V_S.
 *   <li>x ∈ V_S: y ∈ V_P with P(y | x) ∝ exp(−ε·d(x,y)/2) — SanText over V_P.
 *   <li>x ∉ V_S: x itself with probability 1 − p; otherwise y ∈ V_P with P(y | x) ∝ exp(−ε·d(x,y)/2).
 * </ul>
 *
 * <p><b>Guarantee.</b> (ε, ε0)-UMLDP (utility-optimized metric local DP, Yue et al. Def. 4) with
 * ε0 = ln(1/p): sensitive inputs enjoy ε·d-metric LDP among themselves and their outputs never reveal
 * them more than that; a non-sensitive word may be emitted unchanged (probability 1 − p), which reveals
 * it, and otherwise its output is bounded by ε0 + ε·d. <b>Not covered:</b> the token count and layout,
 * verbatim opt-ins, and the correctness of the sensitivity split — a rare word that is frequent in the
 * embedding's corpus counts as non-sensitive.
 */
public final class SanTextPlus implements WordMechanism {
  private static final long serialVersionUID = 1L;

  private final ExponentialNeighbourSampler sampler;
  private final double sensitiveFraction;
  private final double p;
  private final int sensitiveStart;

  /**
   * @param embeddings the vocabulary, most frequent word first
   * @param neighbours a neighbour table over V_P, i.e. target start {@link #sensitiveStart(int, double)}
   * @param epsilon ε &gt; 0
   * @param sensitiveFraction w ∈ (0, 1], the fraction of least frequent words that are sensitive
   * @param p ∈ [0, 1], the probability that a non-sensitive word is replaced
   */
  public SanTextPlus(
      Embeddings embeddings, NeighbourTable neighbours, double epsilon, double sensitiveFraction, double p) {
    checkParameters(embeddings.size(), sensitiveFraction, p);
    int start = sensitiveStart(embeddings.size(), sensitiveFraction);
    if (neighbours.targetStart() != start) {
      throw new IllegalArgumentException(
          "SanText+ with w=" + sensitiveFraction + " needs neighbours over ranks [" + start + ", "
              + embeddings.size() + "), got a table starting at " + neighbours.targetStart());
    }
    this.sampler = new ExponentialNeighbourSampler(embeddings, neighbours, epsilon);
    this.sensitiveFraction = sensitiveFraction;
    this.p = p;
    this.sensitiveStart = start;
  }

  /** The first rank of V_S for a vocabulary of {@code size} words and sensitive fraction {@code w}. */
  public static int sensitiveStart(int size, double w) {
    checkParameters(size, w, 0.5);
    return size - sensitiveCount(size, w);
  }

  /**
   * |V_S| = ⌊w·|V|⌋, computed on the decimal value of w (0.7·90 = 63, where binary floating point
   * would give 62.999…).
   */
  static int sensitiveCount(int size, double w) {
    return java.math.BigDecimal.valueOf(w).multiply(java.math.BigDecimal.valueOf(size))
        .setScale(0, java.math.RoundingMode.FLOOR).intValueExact();
  }

  private static void checkParameters(int size, double w, double p) {
    if (!(w > 0 && w <= 1)) {
      throw new IllegalArgumentException(
          "SanText+ sensitive fraction w must be in (0, 1], got " + w);
    }
    if (sensitiveCount(size, w) < 1) {
      throw new IllegalArgumentException(
          "SanText+ sensitive fraction w=" + w + " selects no word of a vocabulary of " + size
              + "; raise w");
    }
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("SanText+ replacement probability p must be in [0, 1], got " + p);
    }
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    if (word < sensitiveStart && random.nextDouble() >= p) {
      return word;
    }
    return sampler.sample(word, random);
  }

  /** Whether the word of this rank is in the sensitive set V_S. */
  public boolean isSensitive(int word) {
    return word >= sensitiveStart;
  }

  @Override
  public int outputStart() {
    return sensitiveStart;
  }

  @Override
  public String name() {
    return "santext+";
  }

  @Override
  public Map<String, Object> parameters() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("epsilon", sampler.epsilon());
    m.put("w", sensitiveFraction);
    m.put("p", p);
    m.put("epsilon0", p > 0 ? Math.log(1 / p) : Double.POSITIVE_INFINITY);
    return m;
  }

  @Override
  public String guarantee() {
    return "SanText+: (" + sampler.epsilon() + ", ε0=ln(1/p)=" + (p > 0 ? Math.log(1 / p) : "∞")
        + ")-UMLDP per token with d_Euclidean; the " + sensitiveFraction + " least frequent words are "
        + "sensitive; a non-sensitive word is kept verbatim with probability " + (1 - p);
  }
}
