package dev.dptext.mechanism;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.random.RandomStream;
import java.util.List;
import dev.dptext.model.DpTextModel;
import dev.dptext.embedding.WordMetric;
import static dev.dptext.mechanism.MechanismDefinition.EPSILON;
import dev.dptext.mechanism.MechanismDefinition.Parameter;

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

  /** The multivariate Laplace mechanism: ε only. */
  public static final MechanismDefinition DEFINITION = new MechanismDefinition("laplace",
      List.of("madlib", "multivariate-laplace"),
      "Multivariate Laplace (\"Madlib\", Feyisetan et al. 2020): y = argmin_y ‖φ(y) − (φ(x) + Z)‖, Z = R·U, "
          + "R ~ Gamma(m, 1/ε), U uniform on the unit sphere (density ∝ exp(−ε‖z‖)).",
      List.of(Parameter.of(EPSILON))) {
    @Override
    public String example() {
      return "laplace:epsilon=8";
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      return new LaplaceMechanism(model.embeddings(), model.nearestWords(), spec.epsilon());
    }

    @Override
    public WordMechanism buildForShards(MechanismSpec spec, dev.dptext.model.ModelShape shape) {
      return LaplaceMechanism.forShards(shape.dim(), spec.epsilon());
    }

    @Override
    public boolean acceptsApproximateSearch() {
      return true; // the nearest-word step is post-processing of the noisy vector
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return WordMetric.euclidean(model.embeddings());
    }

    @Override
    protected String guarantee(Rendering r) {
      return "multivariate Laplace: " + r.text(EPSILON) + "·d_Euclidean metric DP per token (noise ∝ exp(−ε‖z‖); "
          + "the nearest-word step is post-processing)";
    }
  };

  private LaplaceMechanism(int dim, double epsilon) {
    super(dim, EmbeddingNoise.laplace(dim, epsilon), 1);
  }

  /** The mechanism's steps for the partitioned path, which searches on shards. */
  public static LaplaceMechanism forShards(int dim, double epsilon) {
    return new LaplaceMechanism(dim, epsilon);
  }

  public LaplaceMechanism(Embeddings embeddings, NearestWords nearest, double epsilon) {
    super(embeddings, nearest, EmbeddingNoise.laplace(embeddings.dim(), epsilon), 1);
  }

  @Override
  public int choose(int[] words, double[] distances, int offset, RandomStream random) {
    return words[offset];
  }

  @Override
  public String name() {
    return "laplace";
  }


}
