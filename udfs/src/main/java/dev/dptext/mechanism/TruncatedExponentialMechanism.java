package dev.dptext.mechanism;

import static dev.dptext.mechanism.MechanismDefinition.EPSILON;

import dev.dptext.config.Check;
import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.WordMetric;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.mechanism.MechanismDefinition.Parameter;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.util.List;

/**
 * TEM, the truncated exponential mechanism (Carvalho, Vasiloudis, Feyisetan, Wang, "TEM: High Utility
 * Metric Differential Privacy on Text", arXiv 2107.07928, SDM 2023). For an input word x and a threshold
 * γ, the candidates are L_x = {y ∈ V : d(x,y) ≤ γ}, each scored −d(x,y), plus one element ⊥ scored
 * −γ + (2/ε)·ln|V ∖ L_x|; Gumbel noise of scale 2/ε is added to every score and the largest wins; a
 * winning ⊥ is replaced by a word drawn uniformly from V ∖ L_x. The Gumbel-max is the exponential
 * mechanism over the scores, and ⊥'s mass exp(−ε·γ/2)·|V ∖ L_x| spread uniformly over V ∖ L_x gives each
 * outside word exp(−ε·γ/2). So the output distribution is exactly
 *
 * <pre>  P(y | x) = exp(−ε·min(d(x,y), γ)/2) / Σ_{y'∈V} exp(−ε·min(d(x,y'), γ)/2),   y ∈ V</pre>
 *
 * d the Euclidean distance of the embeddings. Within γ it is SanText's distribution; beyond γ every word
 * weighs the same. The output may be x itself.
 *
 * <p><b>Guarantee.</b> ε·d-metric local DP per token (ε-d_χ-privacy), and also ε·γ local DP: the score
 * s(x,y) = −min(d(x,y), γ) satisfies |s(x,y) − s(x',y)| ≤ min(d(x,x'), γ) (min(·, γ) is 1-Lipschitz and
 * d obeys the triangle inequality), so both the weight ratio exp(ε·(s(x,y) − s(x',y))/2) and the
 * normaliser ratio Z_x'/Z_x are at most exp(ε·min(d(x,x'), γ)/2), and P(y|x) ≤ exp(ε·min(d(x,x'), γ))·P(y|x').
 * <b>Not covered:</b> as every mechanism, the number and positions of tokens and the layout, and tokens
 * emitted verbatim by an explicit opt-in; the embedding and the vocabulary are public.
 *
 * <p><b>γ.</b> Given ({@code gamma} &gt; 0), or by default ({@code gamma=0}) γ = (2/ε)·ln((1 − β)·(|V| − 1)/β) with β = {@code beta}:
 * the smallest γ for which, whatever the input, the output lies farther than γ from it with probability at
 * most β. (The outside mass (|V| − |L_x|)·e^(−εγ/2) over Z_x ≥ 1 + (|V| − |L_x|)·e^(−εγ/2) is largest when
 * L_x = {x}; A/(1 + A) ≤ β with A = (|V| − 1)·e^(−εγ/2) gives the formula.) This is the paper's rule as
 * far as it could be checked here: the paper's full text was not retrievable in this environment, so the
 * derivation above is dptext's own. With it, small ε give a γ beyond every distance of the vocabulary
 * (TEM is then SanText); large ε a γ of a few nearest-neighbour distances.
 *
 * <p><b>Sampling</b> is exact, with SanText's sampler ({@link ExponentialNeighbourSampler}) on the capped
 * distance min(d, γ): the envelope of x's neighbour row and a flat part for the other words, whose bound
 * min(b_x, γ) is tighter the smaller γ is. Expected O(1) distance evaluations per token; the per-(ε, γ)
 * tables take O(|V|·K), built once on the driver.
 */
public final class TruncatedExponentialMechanism implements WordMechanism, ExactConditional {
  private static final long serialVersionUID = 1L;

  /** γ, the truncation threshold (Euclidean distance); 0 = by the rule with β. */
  public static final Setting<Double> GAMMA = Setting.define("gamma").symbol("γ")
      .doc("TEM: the threshold γ in Euclidean distance beyond which every output word weighs the same, "
          + "exp(−ε·γ/2). 0 (the default): γ = (2/ε)·ln((1 − β)·(|V| − 1)/β), the smallest γ for which the output "
          + "lies farther than γ from the input with probability at most β.")
      .hint("0 takes the rule with beta")
      .createWithDefault(ValueType.DOUBLE, Check.nonNegativeFinite(), 0.0);

  /** β, the failure probability of the default γ. */
  public static final Setting<Double> BETA = Setting.define("beta").symbol("β")
      .doc("TEM with gamma=0: the largest probability, for any input, that the output lies farther than γ from "
          + "it; sets γ = (2/ε)·ln((1 − β)·(|V| − 1)/β). In (0, 1); ignored when gamma is given.")
      .createWithDefault(ValueType.DOUBLE, Check.openUnitInterval(), 0.001);

  /** TEM: ε, γ (or β). */
  public static final MechanismDefinition DEFINITION = new MechanismDefinition("tem", List.of("truncated-exponential"),
      "TEM (Carvalho et al. 2023): the exponential mechanism over the whole vocabulary with the distance capped "
          + "at γ, P(y|x) ∝ exp(−ε·min(d(x,y), γ)/2): SanText within γ, every word beyond γ alike (the paper's "
          + "candidates within γ plus one ⊥ drawn uniformly outside).",
      List.of(Parameter.of(EPSILON), Parameter.of(GAMMA), Parameter.of(BETA))) {
    @Override
    public String example() {
      return "tem:epsilon=6,gamma=4.5,beta=0.01";
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      return new TruncatedExponentialMechanism(model.embeddings(), model.neighbours(0), spec.epsilon(),
          gamma(spec, model.embeddings().size()));
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return WordMetric.euclidean(model.embeddings());
    }

    /** ε·min(d, γ): the ε·d metric guarantee and the ε·γ local one together. */
    @Override
    public LossBound lossBound(MechanismSpec spec, DpTextModel model) {
      LossBound metric = super.lossBound(spec, model);
      double cap = spec.epsilon() * gamma(spec, model.embeddings().size());
      return (x, xPrime, y) -> Math.min(metric.bound(x, xPrime, y), cap);
    }

    /** With {@code gamma=0}, says that γ comes from β: {@code tem ε=3.0, γ from β=0.001}. */
    @Override
    public String describe(MechanismSpec spec) {
      return spec.get(GAMMA) > 0 ? "tem ε=" + EPSILON.format(spec.epsilon()) + ", γ=" + GAMMA.format(spec.get(GAMMA))
          : "tem ε=" + EPSILON.format(spec.epsilon()) + ", γ from β=" + BETA.format(spec.get(BETA));
    }

    @Override
    protected String guarantee(Rendering r) {
      String g = r.isSymbolic() ? r.text(GAMMA) : r.value(GAMMA) > 0 ? r.text(GAMMA)
          : "γ (γ from β = " + r.text(BETA) + ")";
      return "TEM: " + r.text(EPSILON) + "·d_Euclidean metric local DP per token, and " + r.text(EPSILON) + "·" + g
          + " local DP (exponential mechanism over exp(−ε·min(d, γ)/2))";
    }
  };

  /** γ of {@code spec} over a vocabulary of {@code size} words: given (&gt; 0), or the rule with β. */
  public static double gamma(MechanismSpec spec, int size) {
    double given = spec.get(GAMMA);
    return given > 0 ? given : gammaFor(spec.epsilon(), spec.get(BETA), size);
  }

  /** γ = (2/ε)·ln((1 − β)·(n − 1)/β); at least the smallest positive double (n = 1: any γ will do). */
  public static double gammaFor(double epsilon, double beta, int size) {
    double g = 2.0 / epsilon * StrictMath.log((1 - beta) * Math.max(1, size - 1) / beta);
    return Math.max(g, Double.MIN_NORMAL);
  }

  private final ExponentialNeighbourSampler sampler;
  private final double gamma;

  /**
   * @param neighbours a neighbour table over the whole vocabulary (target start 0)
   * @param gamma the threshold γ &gt; 0
   */
  public TruncatedExponentialMechanism(Embeddings embeddings, NeighbourTable neighbours, double epsilon,
      double gamma) {
    if (neighbours.targetStart() != 0) { // the definition passes the model's table for rank 0
      throw new IllegalStateException("TEM needs neighbours over the whole vocabulary (target start 0), got "
          + "target start " + neighbours.targetStart());
    }
    if (!(gamma > 0) || Double.isInfinite(gamma)) {
      throw Check.failure(GAMMA.name(), "a positive finite number", gamma, null);
    }
    this.gamma = gamma;
    this.sampler = new ExponentialNeighbourSampler(embeddings, neighbours, epsilon, gamma);
  }

  /** The threshold γ in use. */
  public double gamma() {
    return gamma;
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    return sampler.sample(word, random);
  }

  public double epsilon() {
    return sampler.epsilon();
  }

  @Override
  public double[] conditional(int word) {
    double[] f = new double[sampler.vocabularySize()];
    sampler.exactConditional(word, f);
    return f;
  }

  @Override
  public int outputStart() {
    return 0;
  }

  @Override
  public String name() {
    return "tem";
  }
}
