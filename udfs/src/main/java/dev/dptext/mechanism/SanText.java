package dev.dptext.mechanism;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.random.RandomStream;
import java.util.List;
import dev.dptext.model.DpTextModel;
import dev.dptext.embedding.WordMetric;
import static dev.dptext.mechanism.MechanismDefinition.EPSILON;
import dev.dptext.mechanism.MechanismDefinition.Parameter;

/**
 * SanText (Yue et al., "Differential Privacy for Text Analytics via Natural Text Sanitization",
 * Findings of ACL 2021): every word x is replaced by y ∈ V drawn with
 *
 * <pre>  P(y | x) = exp(−ε·d(x,y)/2) / Σ_{y'∈V} exp(−ε·d(x,y')/2)</pre>
 *
 * where d is the Euclidean distance between the words' embeddings. The output may be x itself.
 *
 * <p><b>Guarantee.</b> ε·d-metric local differential privacy (ε-d_χ-privacy) per token: for any two
 * words x, x' and any output y, P(y | x) ≤ exp(ε·d(x, x'))·P(y | x'). Words far apart in the
 * embedding space are less protected than near ones; the guarantee is per token, so a text of n
 * tokens differing in every token has a bound that adds up. <b>Not covered:</b> the number and
 * positions of tokens and the whitespace layout; tokens emitted verbatim by an explicit opt-in
 * (out-of-vocabulary policy {@code keep}, case restoration); the choice of the embedding and the
 * vocabulary, which are public.
 *
 * <p>Sampling is exact and takes expected O(1) distance evaluations per token (see
 * {@link ExponentialNeighbourSampler}).
 */
public final class SanText implements ExponentialMechanism, ExactConditional {
  private static final long serialVersionUID = 1L;

  /** SanText: ε only. */
  public static final MechanismDefinition DEFINITION = new MechanismDefinition("santext", List.of(),
      "SanText (Yue et al. 2021): x becomes y drawn from the whole vocabulary V (x itself included) with "
          + "P(y|x) ∝ exp(−ε·d(x,y)/2), d the Euclidean distance of the embeddings.",
      List.of(Parameter.of(EPSILON))) {
    @Override
    public String example() {
      return "santext:epsilon=2";
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      return new SanText(model.embeddings(), model.neighbours(0), spec.epsilon());
    }

    @Override
    public WordMechanism buildForShards(MechanismSpec spec, dev.dptext.model.ModelShape shape) {
      return SanText.forShards(shape.size(), spec.epsilon());
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return WordMetric.euclidean(model.embeddings());
    }

    @Override
    protected String guarantee(Rendering r) {
      return "SanText: " + r.text(EPSILON) + "·d_Euclidean metric local DP per token, every vocabulary word alike "
          + "(exponential mechanism, exp(−ε·d/2))";
    }
  };

  private final ExponentialNeighbourSampler sampler;

  private SanText(ExponentialNeighbourSampler sampler) {
    this.sampler = sampler;
  }

  /** SanText over a vocabulary of {@code size} words whose geometry lives in shards. */
  public static SanText forShards(int size, double epsilon) {
    return new SanText(ExponentialNeighbourSampler.withoutTables(size, 0, epsilon));
  }

  /**
   * @param embeddings the vocabulary
   * @param neighbours a neighbour table over the whole vocabulary (target start 0)
   * @param epsilon the privacy parameter ε &gt; 0
   */
  public SanText(Embeddings embeddings, NeighbourTable neighbours, double epsilon) {
    if (neighbours.targetStart() != 0) { // the definition passes the model's table for rank 0
      throw new IllegalStateException(
          "SanText needs neighbours over the whole vocabulary (target start 0), got target start "
              + neighbours.targetStart());
    }
    this.sampler = new ExponentialNeighbourSampler(embeddings, neighbours, epsilon);
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    return sampler.sample(word, random);
  }

  @Override
  public double epsilon() {
    return sampler.epsilon();
  }

  @Override
  public int targetStart() {
    return 0;
  }

  @Override
  public CandidateEnvelope envelope(int[] neighbours, double[] distances, double bound) {
    return sampler.envelope(neighbours, distances, bound);
  }

  @Override
  public int sample(int word, CandidateEnvelope envelope, ProposalTest test, RandomStream random) {
    return sampler.sample(envelope, random, test);
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
    return "santext";
  }


}
