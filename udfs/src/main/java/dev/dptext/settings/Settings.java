package dev.dptext.settings;

import dev.dptext.config.Check;
import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import dev.dptext.knn.NearestSearch;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.text.CasePolicy;
import dev.dptext.text.OovPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The table of every setting of a sanitization: each declared once with its name, type, default, doc
 * and check. The Spark conf keys ({@code spark.dptext.NAME}), the command-line options
 * ({@code --kebab-name}), the ML stage's Params ({@code NAME}), the SQL function's help and the
 * table in docs/settings.md are all derived from {@link #ALL}; the mechanisms' parameters come from
 * {@link Mechanisms}.
 */
public final class Settings {
  private Settings() {}

  public static final Setting<String> MODEL = Setting.define("model").label("PATH")
      .doc("A dptext model artifact or partitioned model directory (from build-model), a GloVe / word2vec / "
          + "fastText .vec embeddings file (.gz allowed; any Hadoop file system), or 'default' for the embedded "
          + "GloVe subset.")
      .createWithDefault(ValueType.STRING, Check.nonBlank(), EmbeddedDefault.NAME);

  public static final Setting<Integer> VOCAB_SIZE = Setting.define("vocabSize")
      .doc("Keep only the N most frequent words of an embeddings file (0 = all).")
      .createWithDefault(ValueType.INT, Check.atLeast(0), 0);

  public static final Setting<Integer> NEIGHBOURS = Setting.define("neighbours")
      .doc("K, the neighbours per word in SanText's sampler tables when they are built from an embeddings file "
          + "(memory |V|·K).")
      .createWithDefault(ValueType.INT, Check.atLeast(1), DpTextModel.DEFAULT_NEIGHBOURS);

  public static final Setting<String> MODEL_DISTRIBUTION = Setting.define("modelDistribution")
      .doc("How executors get the model: broadcast (built on the driver and broadcast) or path (each executor JVM "
          + "loads the model path once and checks its SHA-256 against the driver's; for Spark Connect, Databricks "
          + "serverless and standard access mode, where user code cannot broadcast).")
      .createWithDefault(ValueType.choice(ModelDistribution.class, ModelDistribution::parse), Check.any(), "broadcast");

  public static final Setting<String> MODEL_LAYOUT = Setting.define("modelLayout")
      .doc("How the model is held: partitioned (vocabulary shards on the executors, for vocabularies too large to "
          + "broadcast; build-model then writes a partitioned model directory), broadcast (whole, to every "
          + "executor), or auto (partitioned above 1 GiB of vectors). Same output either way.")
      .createWithDefault(ValueType.choice(ModelLayout.class, ModelLayout::parse), Check.any(), "auto");

  public static final Setting<String> MECHANISM = Mechanisms.MECHANISM;

  public static final Setting<String> NEAREST_SEARCH = Setting.define("nearestSearch")
      .doc("How laplace, mahalanobis, vickrey and vickrey-topk find the nearest words of the noisy vector: exact "
          + "(the reference) or hnsw (approximate: Apache Lucene's HNSW graph, built once per executor JVM and "
          + "model, deterministically; the guarantee is unchanged, the search being post-processing of the noise, "
          + "but a neighbour the graph misses changes the output: the job's summary prints the recall against "
          + "exact search). Refused for every other mechanism (none searches a noisy vector), and with a partitioned "
          + "model.")
      .createWithDefault(ValueType.choice(NearestSearch.class, NearestSearch::parse), Check.any(), "exact");

  public static final Setting<String> OOV = Setting.define("oov")
      .doc("Out-of-vocabulary tokens: random (a uniform word of the mechanism's output vocabulary), placeholder "
          + "(oovPlaceholder), or keep (UNSAFE: emitted verbatim, outside the guarantee).")
      .createWithDefault(ValueType.choice(OovPolicy.class, OovPolicy::parse), Check.any(), "random");

  public static final Setting<String> OOV_PLACEHOLDER = Setting.define("oovPlaceholder").label("TOKEN")
      .doc("The token emitted for oov=placeholder.")
      .createWithDefault(ValueType.STRING, Check.any(), "<unk>");

  public static final Setting<String> CASE_POLICY = Setting.define("casePolicy")
      .doc("vocabulary (output spelled as in the vocabulary) or restore (copies the input's capitalisation: "
          + "outside the guarantee).")
      .createWithDefault(ValueType.choice(CasePolicy.class, CasePolicy::parse), Check.any(), "vocabulary");

  public static final Setting<String> ID_MODE = Setting.define("idMode")
      .doc("Where each row's randomness comes from: column (reproducible, keyed by a stable unique id column), "
          + "content-hash (reproducible; equal texts get equal outputs) or fresh (not reproducible).")
      .createWithDefault(ValueType.choice(IdMode.class, IdMode::parse), Check.any(), "column");

  public static final Setting<String> PURPOSE = Setting.define("purpose").label("LABEL")
      .doc("Separates the random streams of different uses of the same rows.")
      .createWithDefault(ValueType.STRING, Check.nonBlank(), "dptext");

  public static final Setting<String> KEY_FILE = Setting.define("keyFile").label("PATH")
      .doc("A file holding the RNG key (its path, never the key). Wins over keyEnv.")
      .createOptional(ValueType.STRING, Check.nonBlank());

  public static final Setting<String> KEY_ENV = Setting.define("keyEnv").label("VARIABLE")
      .doc("The environment variable holding the RNG key (its name, never the key).")
      .createWithDefault(ValueType.STRING, Check.nonBlank(), "DPTEXT_KEY");

  public static final Setting<String> DATABRICKS_SECRET = Setting.define("databricksSecret").label("SCOPE/KEY")
      .doc("On Databricks: the secret scope/key holding the RNG key, read through dbutils. Wins over keyFile and "
          + "keyEnv.")
      .hint("e.g. dptext/rng-key")
      .createOptional(ValueType.STRING, Check.matching("[^/]+/[^/]+", "SCOPE/KEY"));

  public static final Setting<Boolean> FRESH_RANDOMNESS = Setting.define("freshRandomness")
      .doc("Without a key, run with fresh randomness: re-runs and retried tasks give different output.")
      .createWithDefault(ValueType.BOOLEAN, Check.any(), false);

  public static final Setting<String> SECRET_KEY = Setting.define("secretKey").label("KEY").secret()
      .doc("The RNG key itself (hex or base64, at least 128 bits). Spark conf only, set at application start, "
          + "where Spark redacts it; never a command-line option nor a Param. Wins over every other source.")
      .createOptional(ValueType.STRING, Check.nonBlank());

  /** The settings that say where the model comes from (shared by every command that loads one). */
  public static final List<Setting<?>> MODEL_SETTINGS = List.of(MODEL, VOCAB_SIZE, NEIGHBOURS);

  /** Every setting, in documentation order. */
  public static final List<Setting<?>> ALL = all();

  private static List<Setting<?>> all() {
    List<Setting<?>> all = new ArrayList<>(MODEL_SETTINGS);
    all.add(MODEL_DISTRIBUTION);
    all.add(MODEL_LAYOUT);
    all.add(MECHANISM);
    all.addAll(Mechanisms.parameters());
    all.add(NEAREST_SEARCH);
    all.addAll(List.of(OOV, OOV_PLACEHOLDER, CASE_POLICY, ID_MODE, PURPOSE, KEY_FILE, KEY_ENV, DATABRICKS_SECRET,
        FRESH_RANDOMNESS, SECRET_KEY));
    return List.copyOf(all);
  }

  /** The settings a user can give as an option or a Param: all but the key itself. */
  public static List<Setting<?>> options() {
    return ALL.stream().filter(s -> !s.secret()).toList();
  }

  /** The setting of a Spark conf key, if any. */
  public static Optional<Setting<?>> byConfKey(String key) {
    return ALL.stream().filter(s -> s.confKey().equals(key)).findFirst();
  }

  /** The setting of a name, if any. */
  public static Optional<Setting<?>> byName(String name) {
    return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** A setting's documentation as every surface shows it: its doc, and for a mechanism parameter who uses it. */
  public static String doc(Setting<?> s) {
    String usage = Mechanisms.usage(s);
    return usage.isEmpty() || s == MECHANISM ? s.doc() : s.doc() + " Used by (default): " + usage + ".";
  }

  /** The table of settings in docs/settings.md (checked against it by a test). */
  public static String markdownTable() {
    StringBuilder t = new StringBuilder();
    t.append("| Spark conf (`spark.dptext.`…) | command line | ML Param | default | allowed | meaning |\n");
    t.append("|---|---|---|---|---|---|\n");
    for (Setting<?> s : ALL) {
      t.append("| `").append(s.name()).append("` | ")
          .append(s.secret() ? "—" : "`" + s.cliName() + "`").append(" | ")
          .append(s.secret() ? "—" : "`" + s.name() + "`").append(" | ")
          .append(s.defaultValue().isPresent() ? "`" + s.defaultText() + "`" : s.defaultText()).append(" | ")
          .append(s.expected()).append(" | ")
          .append(doc(s).replace("|", "\\|")).append(" |\n");
    }
    return t.toString();
  }

  /** The table of mechanisms in docs/mechanisms.md: name, parameters, guarantee (checked against it by a test). */
  public static String mechanismsMarkdownTable() {
    StringBuilder t = new StringBuilder();
    t.append("| mechanism | parameters (default) | what it does | guarantee |\n");
    t.append("|---|---|---|---|\n");
    for (var d : Mechanisms.ALL) {
      List<String> params = new ArrayList<>();
      for (var p : d.parameters()) {
        params.add("`" + p.name() + "`" + (p.required() ? " (required)" : " (" + format(p) + ")"));
      }
      t.append("| `").append(d.name()).append("` | ").append(String.join(", ", params)).append(" | ")
          .append(d.summary().replace("|", "\\|")).append(" | ").append(d.guarantee().replace("|", "\\|"))
          .append(" |\n");
    }
    return t.toString();
  }

  /** Which mechanisms have a partitioned form (docs/models.md), from the registry. */
  public static String partitionedMechanisms() {
    List<String> with = new ArrayList<>();
    List<String> without = new ArrayList<>();
    for (var d : Mechanisms.ALL) {
      (d.hasPartitionedForm() ? with : without).add("`" + d.name() + "`");
    }
    return "Mechanisms with a partitioned form: " + String.join(", ", with) + ". Without one (a partitioned model "
        + "is refused for them, with the way out: load it whole): " + (without.isEmpty() ? "none" : String.join(", ", without))
        + ".";
  }

  private static <T> String format(dev.dptext.mechanism.MechanismDefinition.Parameter<T> p) {
    return p.setting().format(p.defaultValue());
  }
}
