package dev.dptext.mechanism;

import dev.dptext.config.Check;
import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import dev.dptext.embedding.WordMetric;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.errors.DpTextException;
import dev.dptext.model.DpTextModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Everything dptext knows about one mechanism, in one place: its name and aliases, its parameters
 * (each a {@link Setting} with its default, range and doc), its guarantee, the metric the guarantee is
 * stated in, and how the sampler is built from a model. The sampler class declares its definition
 * next to its math; {@link Mechanisms} lists them (dptext's own, then any a {@link MechanismProvider}
 * names), and every surface (command line, Spark conf, SQL help, ML Params, the Python package,
 * docs/mechanisms.md) is derived from that list.
 */
public abstract class MechanismDefinition {
  /** ε, common to every mechanism. */
  public static final Setting<Double> EPSILON = Setting.define("epsilon").symbol("ε")
      .doc("The privacy parameter ε > 0 of the mechanism's guarantee: smaller is more private. It scales the "
          + "mechanism's metric, so equal ε are not comparable across metrics (see calibrate).")
      .hint("typical values are 1 to 10 for the embedding mechanisms")
      .createWithDefault(ValueType.DOUBLE, Check.positiveFinite(), 3.0);

  /** What no mechanism's guarantee covers; appended to every guarantee. */
  public static final String NOT_COVERED = "not covered: the number of tokens, whitespace and layout, and anything "
      + "emitted verbatim by an opt-in (oov=keep, casePolicy=restore)";

  /** A parameter as one mechanism uses it: the shared setting and this mechanism's default. */
  public record Parameter<T>(Setting<T> setting, T defaultValue) {
    /** With the setting's own default; without one, the parameter is required. */
    public static <T> Parameter<T> of(Setting<T> setting) {
      return new Parameter<>(setting, setting.defaultValue().orElse(null));
    }

    /** With this mechanism's default (checked by the setting). */
    public static <T> Parameter<T> withDefault(Setting<T> setting, T defaultValue) {
      return new Parameter<>(setting, setting.check(defaultValue));
    }

    public boolean required() {
      return defaultValue == null;
    }

    public String name() {
      return setting.name();
    }
  }

  /**
   * The text of a guarantee: with a spec's values ({@code 3.0·d_Euclidean}) or, for documentation,
   * with the parameters' symbols ({@code ε·d_Euclidean}).
   */
  public static final class Rendering {
    private final MechanismSpec spec;

    private Rendering(MechanismSpec spec) {
      this.spec = spec;
    }

    static Rendering of(MechanismSpec spec) {
      return new Rendering(spec);
    }

    static Rendering symbolic() {
      return new Rendering(null);
    }

    public boolean isSymbolic() {
      return spec == null;
    }

    /** The parameter's value as text, or its symbol. */
    public <T> String text(Setting<T> setting) {
      return spec == null ? setting.symbol() : setting.format(spec.get(setting));
    }

    /** The parameter's value (not for symbolic rendering). */
    public <T> T value(Setting<T> setting) {
      return Objects.requireNonNull(spec, "symbolic rendering has no values").get(setting);
    }
  }

  private final String name;
  private final List<String> aliases;
  private final String summary;
  private final List<Parameter<?>> parameters;

  /**
   * @param name the canonical name, lower case
   * @param aliases other accepted spellings
   * @param summary one sentence: what the mechanism does and where it comes from
   * @param parameters ε first, then the mechanism's own
   */
  protected MechanismDefinition(String name, List<String> aliases, String summary, List<Parameter<?>> parameters) {
    this.name = name;
    this.aliases = List.copyOf(aliases);
    this.summary = summary;
    this.parameters = List.copyOf(parameters);
  }

  public final String name() {
    return name;
  }

  public final List<String> aliases() {
    return aliases;
  }

  public final String summary() {
    return summary;
  }

  public final List<Parameter<?>> parameters() {
    return parameters;
  }

  /** Whether {@code text} names this mechanism (case-insensitive, '_' for '-'). */
  final boolean isNamed(String text) {
    String n = text.strip().toLowerCase(Locale.ROOT).replace('_', '-');
    return n.equals(name) || aliases.contains(n);
  }

  /**
   * Checks that the parameters fit together, beyond each one's own range (e.g. how many thresholds).
   * Fails with {@link Check#failure}.
   */
  protected void validate(MechanismSpec spec) {}

  /**
   * Checks the parameters against the model they will run on, before anything is built: a parameter the model
   * cannot serve (more words per group than its vocabulary has, say) is a usage error, raised from the error
   * catalogue ({@code DpTextErrors.error("MECHANISM_PARAMETER_EXCEEDS_MODEL", ...)}, exit 2), not a failure of
   * the build. {@link MechanismSpec#build} and {@link MechanismSpec#metric} run it.
   */
  protected void validate(MechanismSpec spec, DpTextModel model) {}

  /**
   * For {@link #validate(MechanismSpec, DpTextModel)}: {@code parameter} is {@code value}, more than the model's
   * {@code what} ({@code limit}) allows.
   */
  protected final DpTextException exceedsModel(String parameter, Object value, String what, Object limit) {
    return DpTextErrors.error("MECHANISM_PARAMETER_EXCEEDS_MODEL", "mechanism", name, "parameter", parameter,
        "value", value, "what", what, "limit", limit);
  }

  /**
   * This mechanism with each of its parameters away from its default (and a value for each required one),
   * as a spec {@link MechanismSpec#parse} reads, e.g. {@code tem:epsilon=6,gamma=4.5,beta=0.01}. Every surface's
   * equivalence test runs each registered mechanism so: a new mechanism declares it here, not in a test's
   * table ({@code MechanismDefinitionsTest} checks it is away from every default).
   */
  public abstract String example();

  /**
   * How the evaluation commands ({@code evaluate}, {@code tune}) run this mechanism when the user names no
   * parameters: its defaults, with a value for each required parameter (a spec). The name alone unless a
   * parameter is required.
   */
  public String evaluationDefault() {
    return name;
  }

  /** Builds the sampler (and any table or index it needs) on the driver. */
  public abstract WordMechanism build(MechanismSpec spec, DpTextModel model);

  /** The metric the guarantee is stated in, over the model's vocabulary. */
  public abstract WordMetric metric(MechanismSpec spec, DpTextModel model);

  /**
   * The guarantee as a bound on the privacy loss, pair by pair: for input words x, x' and an output y (vocabulary
   * ranks), ln P(y | x) − ln P(y | x') ≤ {@code bound(x, x', y)}, +∞ where the guarantee promises nothing. By
   * default ε·d(x, x') in {@link #metric}; a mechanism whose guarantee says more or other than that overrides it
   * (SanText+: its ε0 and its verbatim outputs; TEM: its cap at ε·γ). {@code MechanismGuaranteeTest} checks
   * every registered mechanism against this bound, from its exact conditional or from draws.
   */
  public LossBound lossBound(MechanismSpec spec, DpTextModel model) {
    WordMetric d = metric(spec, model);
    double epsilon = spec.epsilon();
    return (x, xPrime, y) -> epsilon * d.distance(x, xPrime);
  }

  /** The bound of {@link #lossBound}: the largest ln P(y | x) − ln P(y | x') the guarantee allows. */
  @FunctionalInterface
  public interface LossBound {
    double bound(int x, int xPrime, int y);
  }

  /**
   * The mechanism for the partitioned path, which holds no vectors: its parameters and the model's
   * shape only; the geometry comes from vocabulary shards (see {@code dev.dptext.classic.partitioned}).
   * Mechanisms that have no partitioned form ({@link #hasPartitionedForm}) must not be asked.
   */
  public WordMechanism buildForShards(MechanismSpec spec, dev.dptext.model.ModelShape shape) {
    // Callers refuse a mechanism without one first, naming the setting (MECHANISM_NOT_PARTITIONED).
    throw new IllegalStateException(name() + " has no partitioned form: check hasPartitionedForm() first");
  }

  /**
   * Whether the mechanism has a partitioned form: read off the class (it overrides {@link #buildForShards}),
   * so the documents' list of such mechanisms cannot drift from the code.
   */
  public final boolean hasPartitionedForm() {
    try {
      return getClass().getMethod("buildForShards", MechanismSpec.class, dev.dptext.model.ModelShape.class)
          .getDeclaringClass() != MechanismDefinition.class;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("buildForShards is declared above", e);
    }
  }

  /**
   * Why this mechanism refuses an approximate nearest-word index ({@code nearestSearch=hnsw}), with the
   * fix; null when it accepts one. Only the embedding-noise mechanisms accept it: their nearest-word
   * step is post-processing of the noisy vector, so an index changes utility, not the guarantee. SanText
   * and SanText+ draw from exact probabilities over their candidate words (truncating those to an
   * index's answers would change the distribution, hence the guarantee).
   */
  public final String approximateSearchRefusal() {
    if (acceptsApproximateSearch()) {
      return null;
    }
    List<String> accepting = new ArrayList<>();
    for (MechanismDefinition d : Mechanisms.ALL) {
      if (d.acceptsApproximateSearch()) {
        accepting.add(d.name());
      }
    }
    return "nearestSearch=hnsw is refused for " + name() + ": it " + approximateSearchObstacle()
        + ". An approximate index is only for the mechanisms whose nearest-word step is post-processing of a "
        + "noisy vector (" + String.join(", ", accepting) + "). Use nearestSearch=exact (the default) with "
        + name() + ", or one of those mechanisms";
  }

  /** Whether an approximate nearest-word index leaves the guarantee whole (see {@link #approximateSearchRefusal}). */
  public boolean acceptsApproximateSearch() {
    return false;
  }

  /** What in this mechanism an approximate index would break (for {@link #approximateSearchRefusal}). */
  protected String approximateSearchObstacle() {
    return "samples its output from exact probabilities over its candidate words, and truncating them to an "
        + "approximate index's answers would change that distribution, so the guarantee";
  }

  /** The mechanism's own guarantee clause: ε, the metric and what it means. */
  protected abstract String guarantee(Rendering r);

  /** The guarantee in general form, with symbols, for help texts and documentation. */
  public final String guarantee() {
    return guarantee(Rendering.symbolic()) + "; " + NOT_COVERED;
  }

  /** The first rank of the output vocabulary the mechanism draws from. */
  public int outputStart(MechanismSpec spec, int vocabularySize) {
    return 0;
  }

  /** Whether the mechanism reads the words' frequency ranks (SanText+'s sensitive set does). */
  public boolean usesFrequencyRanks() {
    return false;
  }

  /** A one-line description with the values, for summaries and logs: {@code mahalanobis ε=3.0, λ=0.5}. */
  public String describe(MechanismSpec spec) {
    List<String> parts = new ArrayList<>();
    for (Parameter<?> p : parameters) {
      parts.add(p.setting().symbol() + "=" + Rendering.of(spec).text(p.setting()));
    }
    return name + " " + String.join(", ", parts);
  }

  @Override
  public String toString() {
    return name;
  }
}
