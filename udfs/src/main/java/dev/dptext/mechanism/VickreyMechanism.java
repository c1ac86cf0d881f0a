package dev.dptext.mechanism;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.random.RandomStream;
import java.util.List;
import java.util.Locale;
import dev.dptext.config.ValueType;
import dev.dptext.config.Setting;
import dev.dptext.config.Check;
import dev.dptext.model.DpTextModel;
import dev.dptext.embedding.WordMetric;
import dev.dptext.errors.DpTextErrors;
import static dev.dptext.mechanism.MechanismDefinition.EPSILON;
import dev.dptext.mechanism.MechanismDefinition.Parameter;

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

  /** t: Vickrey's threshold(s). */
  public static final Setting<List<Double>> T = Setting.define("t")
      .doc("vickrey: one threshold t in [0, 1] (0 is the noise mechanism alone; larger moves outputs away from "
          + "the nearest word); vickrey-topk: thresholds t_1..t_k ≥ 0, output the r-th nearest word with "
          + "probability ∝ exp(−t_r·d_r).")
      .hint("e.g. 0.5 for vickrey, 0;0.5;1 for vickrey-topk")
      .withoutDefaultMeaning("the mechanism's")
      .createOptional(ValueType.DOUBLE_LIST, Check.nonNegativeList());

  /** How the number of thresholds is named in an error: it is t's length that the model must serve. */
  static final String THRESHOLD_COUNT = "k (the number of thresholds in t)";

  /** Vickrey (2-NN rule): ε, t (default 0.5), λ of its noise (default 0: Laplace). */
  public static final MechanismDefinition DEFINITION = new Definition("vickrey", List.of(),
      "Vickrey (Xu et al. 2021): Laplace (λ = 0) or Mahalanobis noise; the nearest and second-nearest words "
          + "y1, y2 of the noisy vector over the whole vocabulary (the input word included); y1 with probability "
          + "(1−t)·d2/(t·d1 + (1−t)·d2), else y2; t = 0 is the noise mechanism.",
      Parameter.withDefault(T, List.of(0.5))) {
    @Override
    public String example() {
      return "vickrey:epsilon=8,t=0.4,lambda=0.2";
    }

    @Override
    protected void validate(MechanismSpec spec) {
      List<Double> t = spec.get(T);
      if (t.size() != 1 || !(t.get(0) <= 1)) {
        throw Check.failure("t", "one threshold in [0, 1] for vickrey", t, "use vickrey-topk for t_1..t_k");
      }
    }
  };

  /** The generalised top-k form: ε, t_1..t_k (required), λ of its noise (default 0). */
  public static final MechanismDefinition TOP_K_DEFINITION = new Definition("vickrey-topk", List.of("vickrey-top-k"),
      "Vickrey's top-k form: as vickrey over the k nearest words of the noisy vector, the r-th with "
          + "probability ∝ exp(−t_r·d_r).",
      Parameter.of(T)) {
    @Override
    public String example() {
      return "vickrey-topk:epsilon=8,t=0;0.5;1,lambda=0.2";
    }

    @Override
    public String evaluationDefault() {
      return "vickrey-topk:t=0;0.5;1";
    }

    @Override
    protected void validate(MechanismSpec spec) {
      if (spec.get(T).size() < 2) {
        throw Check.failure("t", "k ≥ 2 thresholds t_1..t_k for vickrey-topk", spec.get(T), "e.g. t=0;0.5;1");
      }
    }
  };

  /** What the two forms share: the noise (λ = 0 Laplace, else Mahalanobis), the metric, the guarantee. */
  private abstract static class Definition extends MechanismDefinition {
    Definition(String name, List<String> aliases, String summary, Parameter<List<Double>> t) {
      super(name, aliases, summary,
          List.of(Parameter.of(EPSILON), t, Parameter.withDefault(MahalanobisMechanism.LAMBDA, 0.0)));
    }

    /** k thresholds pick among the k nearest words: the vocabulary must have k, a usage error before the build. */
    @Override
    protected void validate(MechanismSpec spec, DpTextModel model) {
      int k = spec.get(T).size();
      int n = model.embeddings().size();
      if (k > n) {
        throw exceedsModel(THRESHOLD_COUNT, k, "vocabulary size", n);
      }
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      double lambda = spec.get(MahalanobisMechanism.LAMBDA);
      return VickreyMechanism.of(model.embeddings(), model.nearestWords(), lambda > 0 ? model.covariance() : null,
          spec.epsilon(), lambda, spec.get(T));
    }

    @Override
    public WordMechanism buildForShards(MechanismSpec spec, dev.dptext.model.ModelShape shape) {
      double lambda = spec.get(MahalanobisMechanism.LAMBDA);
      return VickreyMechanism.forShards(shape.size(), shape.dim(), lambda > 0 ? shape.requireCovariance() : null,
          spec.epsilon(), lambda, spec.get(T));
    }

    @Override
    public boolean acceptsApproximateSearch() {
      return true; // the nearest-word step is post-processing of the noisy vector
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return MahalanobisMechanism.metricOf(model, spec.get(MahalanobisMechanism.LAMBDA));
    }

    @Override
    protected String guarantee(Rendering r) {
      String metric = r.isSymbolic() ? "·d_Euclidean (λ = 0) or " + r.text(EPSILON) + "·d_RM (λ > 0)"
          : r.value(MahalanobisMechanism.LAMBDA) == 0 ? "·d_Euclidean" : "·d_RM (λ=" + r.text(MahalanobisMechanism.LAMBDA) + ")";
      return name() + ": " + r.text(EPSILON) + metric + " metric DP per token (the noise's guarantee; the "
          + "selection is post-processing)";
    }

    @Override
    public String describe(MechanismSpec spec) {
      List<Double> t = spec.get(T);
      double lambda = spec.get(MahalanobisMechanism.LAMBDA);
      return String.format(Locale.ROOT, "%s ε=%s, t=%s, noise=%s", name(), spec.epsilon(),
          t.size() == 1 ? t.get(0).toString() : t.toString(), lambda == 0 ? "laplace" : "mahalanobis λ=" + lambda);
    }
  }

  private final double lambda;
  /** One threshold: the 2-NN rule; several: the top-k exponential rule. */
  private final double[] t;

  private VickreyMechanism(int dim, EmbeddingNoise noise, double lambda, double[] t) {
    super(dim, noise, t.length == 1 ? 2 : t.length);
    this.lambda = lambda;
    this.t = t;
  }

  /** The mechanism's steps for the partitioned path, which searches on shards. */
  public static VickreyMechanism forShards(
      int size, int dim, EmbeddingCovariance covariance, double epsilon, double lambda, List<Double> t) {
    double[] ts = checked(size, epsilon, lambda, t);
    return new VickreyMechanism(dim, noise(dim, covariance, epsilon, lambda), lambda, ts);
  }

  private static double[] checked(int size, double epsilon, double lambda, List<Double> t) {
    MechanismSpec.of(t != null && t.size() == 1 ? DEFINITION.name() : TOP_K_DEFINITION.name(),
        java.util.Map.of("epsilon", epsilon, "t", t == null ? List.of() : t, "lambda", lambda)); // the definitions' checks
    double[] ts = t.stream().mapToDouble(Double::doubleValue).toArray();
    if (ts.length > size) { // the partitioned path's check (validate sees no model there): the same error
      throw DpTextErrors.error("MECHANISM_PARAMETER_EXCEEDS_MODEL", "mechanism",
          ts.length == 1 ? DEFINITION.name() : TOP_K_DEFINITION.name(), "parameter", THRESHOLD_COUNT, "value",
          ts.length, "what", "vocabulary size", "limit", size);
    }
    return ts;
  }

  private static EmbeddingNoise noise(int dim, EmbeddingCovariance covariance, double epsilon, double lambda) {
    return lambda == 0
        ? EmbeddingNoise.laplace(dim, epsilon)
        : EmbeddingNoise.elliptical(dim, epsilon, covariance.regularizedSquareRoot(lambda));
  }

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
    double[] ts = checked(e.size(), epsilon, lambda, t);
    return new VickreyMechanism(e, nearest, noise(e.dim(), covariance, epsilon, lambda), lambda, ts);
  }

  @Override
  public int choose(int[] words, double[] distances, int offset, RandomStream random) {
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
      total += StrictMath.exp(-t[r] * distances[offset + r] - maxLog);
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


}
