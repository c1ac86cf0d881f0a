package dev.dptext.mechanism;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.random.RandomStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The multivariate Laplace mechanism ("Madlib", Feyisetan et al. 2020; CMP, Fernandes et al. 2019):
 * y = argmin_{y ∈ V} ‖φ(y) − (φ(x) + Z)‖ with Z = R·U, R ~ Gamma(m, 1/ε), U uniform on the unit sphere,
 * i.e. Z has density ∝ exp(−ε‖z‖). The nearest word is exact (see {@link NearestWords}); ties go to
 * the lower rank.
 *
 * <p><b>Guarantee.</b> ε·d metric DP per token with d the Euclidean distance of the embeddings: for
 * all words x, x' and outputs y, P(y | x) ≤ exp(ε·‖φ(x) − φ(x')‖)·P(y | x'). The nearest-word step is
 * post-processing. <b>Not covered:</b> the token count and layout, verbatim opt-ins; in sparse regions
 * of the embedding space words are rarely replaced at moderate ε (the Mahalanobis mechanism's
 * motivation).
 */
public final class LaplaceMechanism extends NoisyEmbeddingMechanism {
  private static final long serialVersionUID = 1L;

  public LaplaceMechanism(Embeddings embeddings, NearestWords nearest, double epsilon) {
    super(embeddings, nearest, EmbeddingNoise.laplace(embeddings.dim(), epsilon), 1);
  }

  @Override
  int choose(int[] words, double[] distances, int offset, RandomStream random) {
    return words[offset];
  }

  @Override
  public String name() {
    return "laplace";
  }

  @Override
  public Map<String, Object> parameters() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("epsilon", epsilon());
    return p;
  }

  @Override
  public String guarantee() {
    return "multivariate Laplace: " + epsilon() + "·d_Euclidean metric DP per token (noise ∝ exp(-ε‖z‖), "
        + "nearest word); token count, layout and verbatim opt-ins are not covered";
  }
}
