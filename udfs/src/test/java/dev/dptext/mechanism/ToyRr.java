package dev.dptext.mechanism;

import static dev.dptext.mechanism.MechanismDefinition.EPSILON;

import dev.dptext.embedding.WordMetric;
import dev.dptext.mechanism.MechanismDefinition.Parameter;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.util.List;

/**
 * A toy: k-ary randomised response over the vocabulary (Warner 1965; Kairouz, Oh and Viswanath 2016), the
 * mechanism a test adds to dptext through a mechanism's path alone (docs/adding-a-mechanism.md). Over a
 * vocabulary V of n = |V| ≥ 2 words, word x becomes y with
 *
 * <pre>
 *   P(y | x) = e^ε / (e^ε + n − 1)   if y = x,
 *   P(y | x) = 1 / (e^ε + n − 1)     otherwise.
 * </pre>
 *
 * <p><b>Guarantee.</b> ε-local differential privacy per token: for any words x, x' and any output y,
 * P(y | x) ≤ e^ε·P(y | x') (the ratio is e^ε at y = x, e^−ε at y = x', 1 elsewhere). That is ε·d-metric
 * local DP for the discrete metric d(x, x') = 1 when x ≠ x': every pair of words alike, whatever their
 * embeddings. With n in the thousands a word is almost always replaced by a uniform one, so the toy is
 * no use for text; it proves that a mechanism reaches every surface from its own definition.
 */
public final class ToyRr implements WordMechanism {
  private static final long serialVersionUID = 1L;

  /** ε only; its metric is the discrete one, which the embeddings do not enter. */
  public static final MechanismDefinition DEFINITION = new MechanismDefinition("toy-rr", List.of(),
      "Randomised response over the vocabulary: the word itself with probability e^ε/(e^ε+|V|−1), else a "
          + "uniform other word.",
      List.of(Parameter.of(EPSILON))) {
    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      return new ToyRr(model.embeddings().size(), spec.epsilon());
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return WordMetric.discrete(model.embeddings().size());
    }

    @Override
    protected String guarantee(Rendering r) {
      return "toy-rr: " + r.text(EPSILON) + "-local DP per token, every pair of words alike (randomised response)";
    }

    @Override
    public String example() {
      return "toy-rr:epsilon=2";
    }
  };

  /** Names the toy to the registry: the class of the line in META-INF/services (see {@link MechanismProvider}). */
  public static final class Provider implements MechanismProvider {
    @Override
    public MechanismDefinition definition() {
      return DEFINITION;
    }
  }

  private final int size;
  private final double keep;

  /**
   * @param size the vocabulary size n ≥ 2
   * @param epsilon ε &gt; 0
   */
  ToyRr(int size, double epsilon) {
    if (size < 2) {
      throw new IllegalArgumentException("toy-rr needs at least 2 words, got " + size);
    }
    this.size = size;
    // e^ε/(e^ε + n − 1) as 1/(1 + (n − 1)·e^−ε): no overflow however large ε. StrictMath: the same bits on
    // every JVM.
    this.keep = 1 / (1 + (size - 1) * StrictMath.exp(-epsilon));
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    if (random.nextDouble() < keep) {
      return word;
    }
    int other = random.nextInt(size - 1); // uniform over V \ {x}: the ranks above x move up by one
    return other < word ? other : other + 1;
  }

  @Override
  public int outputStart() {
    return 0;
  }

  @Override
  public String name() {
    return "toy-rr";
  }
}
