package dev.dptext.mechanism;

import dev.dptext.embedding.Embeddings;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.random.RandomStream;
import java.util.Locale;
import dev.dptext.config.ValueType;
import dev.dptext.config.Setting;
import dev.dptext.config.Check;
import java.util.List;
import dev.dptext.model.DpTextModel;
import dev.dptext.embedding.WordMetric;
import static dev.dptext.mechanism.MechanismDefinition.EPSILON;
import dev.dptext.mechanism.MechanismDefinition.Parameter;

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
public final class SanTextPlus implements ExponentialMechanism, ExactConditional {
  private static final long serialVersionUID = 1L;

  /** w: the fraction of least frequent words that are sensitive. */
  public static final Setting<Double> W = Setting.define("w")
      .doc("SanText+: the fraction of least frequent words (by the embedding file's public rank) that are "
          + "sensitive, in (0, 1].")
      .hint("the paper uses 0.9")
      .createWithDefault(ValueType.DOUBLE, Check.unitIntervalExcludingZero(), 0.9);

  /** p: the probability that a non-sensitive word is replaced. */
  public static final Setting<Double> P = Setting.define("p")
      .doc("SanText+: the probability that a non-sensitive word is replaced, in [0, 1]; otherwise it is kept "
          + "verbatim. ε0 = ln(1/p).")
      .hint("the paper uses 0.3")
      .createWithDefault(ValueType.DOUBLE, Check.unitInterval(), 0.3);

  /** SanText+: ε, w, p. */
  public static final MechanismDefinition DEFINITION = new MechanismDefinition("santext+",
      List.of("santextplus", "santext-plus"),
      "SanText+ (Yue et al. 2021, §4): V_S = the fraction w of least frequent words (public rank: the "
          + "embedding file's order); x ∈ V_S → SanText over V_S; x ∉ V_S → x kept with probability 1 − p, else "
          + "y ∈ V_S with P ∝ exp(−ε·d(x,y)/2).",
      List.of(Parameter.of(EPSILON), Parameter.of(W), Parameter.of(P))) {
    @Override
    public String example() {
      return "santext+:epsilon=2,w=0.8,p=0.4";
    }

    /** w must select at least one word of the model's vocabulary: a usage error before the build. */
    @Override
    protected void validate(MechanismSpec spec, DpTextModel model) {
      sensitiveStart(model.embeddings().size(), spec.get(W));
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      double w = spec.get(W);
      return new SanTextPlus(model.embeddings(), model.neighbours(outputStart(spec, model.embeddings().size())),
          spec.epsilon(), w, spec.get(P));
    }

    @Override
    public WordMechanism buildForShards(MechanismSpec spec, dev.dptext.model.ModelShape shape) {
      return SanTextPlus.forShards(shape.size(), spec.epsilon(), spec.get(W), spec.get(P));
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return WordMetric.euclidean(model.embeddings());
    }

    @Override
    public int outputStart(MechanismSpec spec, int vocabularySize) {
      return sensitiveStart(vocabularySize, spec.get(W));
    }

    /**
     * (ε, ε0)-UMLDP: ε·d between sensitive words, ε·d + ε0 when either word is non-sensitive (its replacement
     * has the factor p), and nothing for an output outside V_S (a non-sensitive word kept verbatim reveals it).
     */
    @Override
    public LossBound lossBound(MechanismSpec spec, DpTextModel model) {
      int start = outputStart(spec, model.embeddings().size());
      LossBound metric = super.lossBound(spec, model);
      double epsilon0 = epsilon0(spec.get(P));
      return (x, xPrime, y) -> y < start ? Double.POSITIVE_INFINITY
          : metric.bound(x, xPrime, y) + (x < start || xPrime < start ? epsilon0 : 0);
    }

    @Override
    public boolean usesFrequencyRanks() {
      return true;
    }

    @Override
    protected String guarantee(Rendering r) {
      String epsilon0 = r.isSymbolic() ? "ε0" : String.valueOf(epsilon0(r.value(P)));
      String kept = r.isSymbolic() ? "1 − p" : String.valueOf(1 - r.value(P));
      return "SanText+: (" + r.text(EPSILON) + ", " + epsilon0 + ")-UMLDP per token with d_Euclidean and ε0 = ln(1/"
          + r.text(P) + "); the fraction " + r.text(W) + " of least frequent words is sensitive; a non-sensitive "
          + "word is kept verbatim with probability " + kept;
    }

    @Override
    public String describe(MechanismSpec spec) {
      return String.format(Locale.ROOT, "%s, ε0=ln(1/p)=%.3f", super.describe(spec), epsilon0(spec.get(P)));
    }
  };

  private static double epsilon0(double p) {
    return p > 0 ? Math.log(1 / p) : Double.POSITIVE_INFINITY;
  }

  private final ExponentialNeighbourSampler sampler;
  private final double p;
  private final int sensitiveStart;

  private SanTextPlus(int size, double epsilon, double sensitiveFraction, double p) {
    checkParameters(size, sensitiveFraction, p);
    this.sensitiveStart = sensitiveStart(size, sensitiveFraction);
    this.sampler = ExponentialNeighbourSampler.withoutTables(size, sensitiveStart, epsilon);
    this.p = p;
  }

  /** SanText+ over a vocabulary of {@code size} words whose geometry lives in shards. */
  public static SanTextPlus forShards(int size, double epsilon, double sensitiveFraction, double p) {
    return new SanTextPlus(size, epsilon, sensitiveFraction, p);
  }

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
    if (neighbours.targetStart() != start) { // the definition passes the model's table for this start
      throw new IllegalStateException(
          "SanText+ with w=" + sensitiveFraction + " needs neighbours over ranks [" + start + ", "
              + embeddings.size() + "), got a table starting at " + neighbours.targetStart());
    }
    this.sampler = new ExponentialNeighbourSampler(embeddings, neighbours, epsilon);
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
    W.check(w);
    if (sensitiveCount(size, w) < 1) {
      throw DpTextErrors.error("MECHANISM_PARAMETER_SELECTS_NO_WORD", "mechanism", DEFINITION.name(), "parameter",
          W.name(), "value", java.math.BigDecimal.valueOf(w).stripTrailingZeros().toPlainString(), "size", size);
    }
    P.check(p);
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    return keepsVerbatim(word, random) ? word : sampler.sample(word, random);
  }

  /** The first draw for a token: a non-sensitive word is kept with probability 1 − p (no draw otherwise). */
  private boolean keepsVerbatim(int word, RandomStream random) {
    return word < sensitiveStart && random.nextDouble() >= p;
  }

  @Override
  public double epsilon() {
    return sampler.epsilon();
  }

  @Override
  public int targetStart() {
    return sensitiveStart;
  }

  @Override
  public CandidateEnvelope envelope(int[] neighbours, double[] distances, double bound) {
    return sampler.envelope(neighbours, distances, bound);
  }

  @Override
  public int sample(int word, CandidateEnvelope envelope, ProposalTest test, RandomStream random) {
    return keepsVerbatim(word, random) ? word : sampler.sample(envelope, random, test);
  }

  /** f(y|x): SanText over V_S, and for a non-sensitive x, x itself with probability 1 − p. */
  @Override
  public double[] conditional(int word) {
    double[] f = new double[sampler.vocabularySize()];
    sampler.exactConditional(word, f);
    if (word < sensitiveStart) {
      for (int y = sensitiveStart; y < f.length; y++) {
        f[y] *= p;
      }
      f[word] += 1 - p;
    }
    return f;
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


}
