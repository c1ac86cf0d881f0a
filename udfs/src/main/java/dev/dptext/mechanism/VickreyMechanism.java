package dev.dptext.mechanism;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.random.RandomStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Vickrey mechanism (Xu et al., "On a Utilitarian Approach to Privacy Preserving Text
 * Generation", 2021): add Laplace (λ = 0) or Mahalanobis (λ &gt; 0) noise to φ(x), take the nearest and
 * second-nearest words y1, y2 of the noisy vector over the WHOLE vocabulary — x included: the papers'
 * pseudo-code excludes the input word, which breaks the guarantee (then P[M(x)=x] = 0 &lt; P[M(x')=x]) —
 * and output y1 with probability (1−t)·d2 / (t·d1 + (1−t)·d2), else y2. t ∈ [0, 1]; t = 0 is the
 * underlying noise mechanism; larger t moves outputs away from the nearest word.
 *
 * <p>Generalised top-k form: with thresholds t_1..t_k, output the r-th nearest word with probability
 * ∝ exp(−t_r·d_r).
 *
 * <p><b>Guarantee.</b> The selection reads only the noisy vector and the public embeddings, so it is
 * post-processing: the guarantee is the noise's — ε·d_Euclidean metric DP per token for λ = 0,
 * ε·d_RM for λ &gt; 0. <b>Not covered:</b> token count and layout, verbatim opt-ins.
 */
public final class VickreyMechanism extends NoisyEmbeddingMechanism {
  private static final long serialVersionUID = 1L;

  private final double lambda;
  /** One threshold: the 2-NN rule; several: the top-k exponential rule. */
  private final double[] t;

  private VickreyMechanism(Embeddings e, NearestWords nearest, EmbeddingNoise noise, double lambda, double[] t) {
    super(e, nearest, noise, t.length == 1 ? 2 : t.length);
    this.lambda = lambda;
    this.t = t;
  }

  /**
   * @param t one threshold (the 2-NN rule) or k ≥ 2 thresholds (the top-k rule), each in [0, ∞) and,
   *     for the 2-NN rule, in [0, 1]
   * @param lambda 0 for Laplace noise, in (0, 1] for Mahalanobis noise with this λ
   * @param covariance needed when λ &gt; 0, else may be null
   */
  public static VickreyMechanism of(
      Embeddings e, NearestWords nearest, EmbeddingCovariance covariance, double epsilon, double lambda, List<Double> t) {
    if (t == null || t.isEmpty()) {
      throw new IllegalArgumentException("Vickrey needs a threshold t (or t_1..t_k for the top-k form)");
    }
    double[] ts = t.stream().mapToDouble(Double::doubleValue).toArray();
    for (double x : ts) {
      if (!(x >= 0) || Double.isInfinite(x) || (ts.length == 1 && x > 1)) {
        throw new IllegalArgumentException(
            "Vickrey threshold t must be in [0, 1] (or ≥ 0 for the top-k form), got " + x);
      }
    }
    if (ts.length > e.size()) {
      throw new IllegalArgumentException("top-" + ts.length + " needs at least that many words");
    }
    EmbeddingNoise noise = lambda == 0
        ? EmbeddingNoise.laplace(e.dim(), epsilon)
        : EmbeddingNoise.elliptical(e.dim(), epsilon, covariance.regularizedSquareRoot(lambda));
    return new VickreyMechanism(e, nearest, noise, lambda, ts);
  }

  @Override
  int choose(int[] words, double[] distances, int offset, RandomStream random) {
    if (t.length == 1) {
      double d1 = distances[offset];
      double d2 = distances[offset + 1];
      double den = t[0] * d1 + (1 - t[0]) * d2;
      double pFirst = den > 0 ? (1 - t[0]) * d2 / den : 1.0;
      return random.nextDouble() < pFirst ? words[offset] : words[offset + 1];
    }
    // P(r) ∝ exp(−t_r·d_r), relative to the largest term so nothing overflows.
    int k = t.length;
    double maxLog = Double.NEGATIVE_INFINITY;
    for (int r = 0; r < k; r++) {
      maxLog = Math.max(maxLog, -t[r] * distances[offset + r]);
    }
    double total = 0;
    double[] cumulative = new double[k];
    for (int r = 0; r < k; r++) {
      total += Math.exp(-t[r] * distances[offset + r] - maxLog);
      cumulative[r] = total;
    }
    double u = random.nextDouble() * total;
    for (int r = 0; r < k; r++) {
      if (u < cumulative[r]) {
        return words[offset + r];
      }
    }
    return words[offset + k - 1];
  }

  @Override
  public String name() {
    return t.length == 1 ? "vickrey" : "vickrey-topk";
  }

  @Override
  public Map<String, Object> parameters() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("epsilon", epsilon());
    p.put("lambda", lambda);
    p.put("t", t.length == 1 ? (Object) t[0] : java.util.Arrays.toString(t));
    return p;
  }

  @Override
  public String guarantee() {
    return name() + ": " + epsilon() + (lambda == 0 ? "·d_Euclidean" : "·d_RM (λ=" + lambda + ")")
        + " metric DP per token (noise mechanism; the selection is post-processing); token count, "
        + "layout and verbatim opt-ins are not covered";
  }
}
