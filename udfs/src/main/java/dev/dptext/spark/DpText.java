package dev.dptext.spark;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RowSeeder;
import dev.dptext.random.SecretKey;
import dev.dptext.text.CasePolicy;
import dev.dptext.text.OovPolicy;
import dev.dptext.text.TextSanitizer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * dptext on Spark: the DataFrame API and the SQL function registration.
 *
 * <pre>{@code
 * Dataset<Row> out = DpText.sanitizer()
 *     .mechanism(MechanismSpec.santextPlus(3.0, 0.9, 0.3))
 *     .key(SecretKey.fromEnv("DPTEXT_KEY"))
 *     .idColumn("review_id")
 *     .transform(reviews, "text", "text_dp");
 *
 * DpText.register(spark);   // SQL: SELECT dp_sanitize(text, review_id) FROM reviews
 * }</pre>
 *
 * The model and mechanism are built once on the driver and broadcast; each row is sanitized with its
 * own keyed random stream, so the output depends only on (key, id, text) — not on partitioning,
 * retries or executor count.
 */
public final class DpText {
  private static final Logger LOG = LoggerFactory.getLogger(DpText.class);

  /** SQL function names. */
  public static final String SQL_FUNCTION = "dp_sanitize";

  private DpText() {}

  /** A DataFrame sanitizer configured from scratch (defaults: SanText ε=3, embedded model). */
  public static Builder sanitizer() {
    return new Builder(new DpTextOptions());
  }

  /** A DataFrame sanitizer configured from the session's {@code spark.dptext.*} settings. */
  public static Builder sanitizer(SparkSession spark) {
    return new Builder(SessionConf.options(spark));
  }

  /** A sanitizer from options filled elsewhere (the job). */
  public static Builder sanitizer(DpTextOptions options) {
    return new Builder(options);
  }

  /**
   * Registers the SQL function {@code dp_sanitize(text, id)} (and the one-argument
   * {@code dp_sanitize(text)} for id modes content-hash and fresh) in a running session, configured
   * from its {@code spark.dptext.*} settings. For clusters where the jar is attached after start-up;
   * from Python: {@code spark._jvm.dev.dptext.spark.DpText.register(spark._jsparkSession)}.
   */
  public static void register(SparkSession spark) {
    SqlFunctions.register(spark);
  }

  /** Fluent configuration of one sanitization; {@link #transform} applies it. */
  public static final class Builder {
    private final DpTextOptions o;
    private String idColumn;
    private TokenAccumulators counters;
    /** The sanitizer this builder broadcast last (fresh keys are never shared, so keep our own). */
    private Broadcast<JavaSerialized<Sanitizer>> built;

    Builder(DpTextOptions options) {
      this.o = options;
    }

    /** A model source: {@code default}, a model artifact, or a GloVe/.vec file. */
    public Builder model(String source) {
      o.model = source;
      o.modelInstance = null;
      return this;
    }

    /** A model already in memory. */
    public Builder model(DpTextModel model) {
      o.modelInstance = model;
      return this;
    }

    /** Keep only the most frequent words of an embeddings file (0 = all). */
    public Builder vocabularySize(int words) {
      o.vocabularySize = words;
      return this;
    }

    public Builder mechanism(MechanismSpec spec) {
      o.mechanism = spec.name();
      o.epsilon = spec.epsilon();
      o.w = spec.sensitiveFraction();
      o.p = spec.replaceProbability();
      o.lambda = spec.lambda();
      o.t = spec.t();
      o.bits = spec.bits();
      return this;
    }

    public Builder key(SecretKey key) {
      o.key = key;
      return this;
    }

    public Builder oovPolicy(OovPolicy policy) {
      o.oov = policy;
      return this;
    }

    public Builder oovPlaceholder(String placeholder) {
      o.oovPlaceholder = placeholder;
      return this;
    }

    public Builder casePolicy(CasePolicy policy) {
      o.casePolicy = policy;
      return this;
    }

    /** Seeds each row from this column (recommended): see {@link IdMode#COLUMN}. */
    public Builder idColumn(String column) {
      this.idColumn = column;
      o.idMode = IdMode.COLUMN;
      return this;
    }

    /** Seeds each row from its text: see {@link IdMode#CONTENT_HASH} for the trade-off. */
    public Builder seedByContent() {
      o.idMode = IdMode.CONTENT_HASH;
      this.idColumn = null;
      return this;
    }

    /** Fresh randomness, not reproducible: see {@link IdMode#FRESH}. */
    public Builder freshRandomness() {
      o.idMode = IdMode.FRESH;
      o.fresh = true;
      this.idColumn = null;
      return this;
    }

    /** Separates the random streams of different uses of the same rows (default {@code dptext}). */
    public Builder purpose(String purpose) {
      o.purpose = purpose;
      return this;
    }

    /** Counts tokens, changes and OOV tokens into these accumulators. */
    public Builder countTokens(TokenAccumulators accumulators) {
      this.counters = accumulators;
      return this;
    }

    public DpTextOptions options() {
      return o;
    }

    /** Replaces {@code column} with its sanitized text. */
    public Dataset<Row> transform(Dataset<Row> df, String column) {
      return transform(df, column, column);
    }

    /**
     * Adds (or replaces) {@code outputColumn} with the sanitized {@code inputColumn}; every other
     * column and every row is kept; null stays null, empty stays empty.
     */
    public Dataset<Row> transform(Dataset<Row> df, String inputColumn, String outputColumn) {
      validate(df.schema(), inputColumn);
      UserDefinedFunction udf = udf(df.sparkSession());
      Column text = functions.col(inputColumn);
      Column result =
          o.idMode == IdMode.COLUMN
              ? udf.apply(text, functions.col(idColumn))
              : udf.apply(text, functions.lit(null).cast(DataTypes.StringType));
      return df.withColumn(outputColumn, result);
    }

    /** Checks the columns before anything is built, with errors that name them. */
    public void validate(StructType schema, String inputColumn) {
      StructField field = field(schema, inputColumn, "text column");
      if (!field.dataType().equals(DataTypes.StringType)) {
        throw new IllegalArgumentException(
            "The text column '" + inputColumn + "' has type " + field.dataType().simpleString()
                + "; dptext needs a string column (cast it first)");
      }
      if (o.idMode == IdMode.COLUMN) {
        if (idColumn == null) {
          throw new IllegalArgumentException(
              "No id column given. Name a stable, unique id column (idColumn), or choose explicitly: "
                  + "seedByContent() (reproducible, but equal texts get equal outputs) or "
                  + "freshRandomness() (not reproducible)");
        }
        DataType t = field(schema, idColumn, "id column").dataType();
        if (!(t instanceof org.apache.spark.sql.types.AtomicType)) {
          throw new IllegalArgumentException(
              "The id column '" + idColumn + "' has type " + t.simpleString()
                  + "; use a string, integer or binary id");
        }
      }
    }

    private static StructField field(StructType schema, String name, String role) {
      if (!Arrays.asList(schema.fieldNames()).contains(name)) {
        throw new IllegalArgumentException(
            "The " + role + " '" + name + "' is not in the input; its columns are "
                + Arrays.toString(schema.fieldNames()));
      }
      return schema.apply(name);
    }

    /**
     * The guarantee of the configured mechanism, one sentence (ε, metric, what is not covered), for
     * audit records; builds (or reuses) the broadcast sanitizer on the driver.
     */
    public String guarantee(SparkSession spark) {
      Broadcast<JavaSerialized<Sanitizer>> b = built != null ? built : broadcast(spark, o);
      return b.value().get().textSanitizer().mechanism().guarantee();
    }

    /**
     * Builds the model, mechanism and broadcast now rather than at {@link #transform}: a job can do
     * this on another thread while Spark reads its input, and {@link #transform} then reuses it (one
     * broadcast per configuration and Spark context). Not for fresh randomness, which never shares.
     */
    public void prepare(SparkSession spark) {
      if (o.idMode == IdMode.FRESH) {
        throw new IllegalStateException("prepare() shares the broadcast; fresh randomness never does");
      }
      broadcast(spark, o);
    }

    /** The UDF itself, for use in {@code select} or SQL registration. */
    public UserDefinedFunction udf(SparkSession spark) {
      Broadcast<JavaSerialized<Sanitizer>> b = broadcast(spark, o);
      built = b;
      UserDefinedFunction udf =
          functions.udf(new SanitizeFunction(b, counters), DataTypes.StringType).withName(SQL_FUNCTION);
      return o.idMode == IdMode.FRESH ? udf.asNondeterministic() : udf;
    }
  }

  private static final Map<BroadcastKey, Broadcast<JavaSerialized<Sanitizer>>> BROADCASTS =
      new ConcurrentHashMap<>();

  /**
   * Builds the model, mechanism and sanitizer on the driver and broadcasts them, once per
   * configuration and Spark context.
   */
  static Broadcast<JavaSerialized<Sanitizer>> broadcast(SparkSession spark, DpTextOptions o) {
    SecretKey key = o.resolveKey();
    if (o.idMode == IdMode.FRESH || key.isFresh()) {
      LOG.warn("dptext runs with fresh randomness: re-runs and retried tasks give different output");
    }
    if (o.idMode == IdMode.FRESH) {
      return build(spark, o, key);
    }
    // Equal configurations share one broadcast; the record compares keys by content, in memory only.
    BroadcastKey cacheKey = new BroadcastKey(
        spark.sparkContext().applicationId(),
        o.describe() + "|" + o.vocabularySize + "|" + o.neighbours + "|" + o.oovPlaceholder + "|" + o.purpose,
        o.modelInstance == null ? 0 : System.identityHashCode(o.modelInstance),
        key);
    return BROADCASTS.compute(cacheKey, (k, existing) ->
        existing != null && existing.isValid() ? existing : build(spark, o, key));
  }

  private record BroadcastKey(String application, String configuration, int modelIdentity, SecretKey key) {
    @Override
    public String toString() {
      return "BroadcastKey[" + configuration + ", key redacted]";
    }
  }

  private static Broadcast<JavaSerialized<Sanitizer>> build(SparkSession spark, DpTextOptions o, SecretKey key) {
    DpTextModel model = o.modelInstance != null
        ? o.modelInstance
        : ModelLoader.load(spark, o.model, o.vocabularySize, o.neighbours);
    MechanismSpec spec = o.mechanismSpec();
    WordMechanism mechanism = spec.build(model);
    TextSanitizer text =
        new TextSanitizer(model.embeddings(), mechanism, o.oov, o.oovPlaceholder, o.casePolicy);
    if (o.oov == OovPolicy.KEEP) {
      LOG.warn("dptext oov=keep: out-of-vocabulary tokens are emitted verbatim, without protection");
    }
    Sanitizer s = new Sanitizer(text, new RowSeeder(key, o.purpose), o.idMode);
    return JavaSerialized.broadcast(spark.sparkContext(), s);
  }
}
