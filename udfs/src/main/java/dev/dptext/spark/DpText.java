package dev.dptext.spark;

import dev.dptext.classic.Classic;
import dev.dptext.classic.partitioned.PartitionedSanitizer;
import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.knn.NearestSearch;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.PartitionedModel;
import dev.dptext.random.SecretKey;
import dev.dptext.runtime.CountingSanitizeFunction;
import dev.dptext.runtime.ModelLoader;
import dev.dptext.runtime.PathSanitizer;
import dev.dptext.runtime.SanitizeFunction;
import dev.dptext.runtime.SanitizerCache;
import dev.dptext.runtime.SanitizerSource;
import dev.dptext.runtime.ServerSanitizer;
import dev.dptext.runtime.SessionConf;
import dev.dptext.runtime.SqlFunctionNames;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.settings.ModelDistribution;
import dev.dptext.settings.Settings;
import dev.dptext.text.CasePolicy;
import dev.dptext.text.OovPolicy;
import java.util.Arrays;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * dptext on Spark: the DataFrame API and the SQL function registration.
 *
 * <pre>{@code
 * Dataset<Row> out = DpText.sanitizer()
 *     .mechanism(MechanismSpec.parse("santext+:epsilon=3,w=0.9,p=0.3"))
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
 *
 * <p>On a Spark Connect session {@link Builder#transform} calls the server's {@code dp_sanitize} with
 * this configuration ({@link Builder#onServer}): the same rows, the same text, with the model and the key
 * on the server.
 */
public final class DpText {
  private static final Logger LOG = LoggerFactory.getLogger(DpText.class);

  /** SQL function names. */
  public static final String SQL_FUNCTION = SqlFunctionNames.SANITIZE;

  /**
   * {@code dp_sanitize_counted(text[, id])}: {@link #SQL_FUNCTION}'s text with the row's token counts, as a
   * struct ({@code text, tokens, changed, outOfVocabulary, searchQueries, searchWanted, searchFound}); for a
   * Spark Connect client, which sums them with {@code Dataset.observe} (it has no accumulators).
   */
  public static final String SQL_FUNCTION_COUNTED = SqlFunctionNames.SANITIZE_COUNTED;

  private DpText() {}

  /** A DataFrame sanitizer configured from scratch (every setting at its default; see {@link Settings}). */
  public static Builder sanitizer() {
    return new Builder(DpTextOptions.defaults());
  }

  /** A DataFrame sanitizer configured from the session's {@code spark.dptext.*} settings. */
  public static Builder sanitizer(SparkSession spark) {
    return new Builder(SessionConf.options(spark));
  }

  /** A sanitizer from options filled elsewhere (the job, the ML stage). */
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
    private DpTextOptions o;
    private DpTextModel modelInstance;
    private SecretKey key;
    private String idColumn;
    private TokenAccumulators counters;

    Builder(DpTextOptions options) {
      this.o = options;
    }

    /** Sets any setting of {@link Settings} (checked now). */
    public <T> Builder set(Setting<T> setting, T value) {
      o = o.with(setting, value);
      return this;
    }

    /**
     * Sets a setting by its name or Spark conf key, from text, like {@code DataFrameReader.option}:
     * {@code option("epsilon", "3")}.
     */
    public Builder option(String name, String value) {
      Setting<?> s = Settings.byName(name).or(() -> Settings.byConfKey(name)).orElseThrow(() ->
          DpTextErrors.error("SETTING_UNKNOWN", "unknown", name, "known",
              Settings.ALL.stream().map(Setting::name).toList()));
      o = o.withText(s, value);
      return this;
    }

    /** A model source: {@code default}, a model artifact, or a GloVe/.vec file. */
    public Builder model(String source) {
      o = o.with(Settings.MODEL, source);
      modelInstance = null;
      return this;
    }

    /** A model already in memory. */
    public Builder model(DpTextModel model) {
      modelInstance = model;
      return this;
    }


    /** The mechanism and all its parameters. */
    public Builder mechanism(MechanismSpec spec) {
      o = o.with(spec);
      return this;
    }

    /** The key itself (it wins over every configured key source). */
    public Builder key(SecretKey key) {
      this.key = key;
      return this;
    }

    public Builder oovPolicy(OovPolicy policy) {
      return set(Settings.OOV, ValueType.label(policy));
    }

    public Builder oovPlaceholder(String placeholder) {
      return set(Settings.OOV_PLACEHOLDER, placeholder);
    }

    public Builder casePolicy(CasePolicy policy) {
      return set(Settings.CASE_POLICY, ValueType.label(policy));
    }

    /** Seeds each row from this column (recommended): see {@link IdMode#COLUMN}. */
    public Builder idColumn(String column) {
      this.idColumn = column;
      o = o.with(Settings.ID_MODE, ValueType.label(IdMode.COLUMN));
      return this;
    }

    /** Seeds each row from its text: see {@link IdMode#CONTENT_HASH} for the trade-off. */
    public Builder seedByContent() {
      o = o.with(Settings.ID_MODE, ValueType.label(IdMode.CONTENT_HASH));
      this.idColumn = null;
      return this;
    }

    /** Fresh randomness, not reproducible: see {@link IdMode#FRESH}. */
    public Builder freshRandomness() {
      o = o.with(Settings.ID_MODE, ValueType.label(IdMode.FRESH)).with(Settings.FRESH_RANDOMNESS, true);
      this.idColumn = null;
      return this;
    }

    /** Separates the random streams of different uses of the same rows (default {@code dptext}). */
    public Builder purpose(String purpose) {
      return set(Settings.PURPOSE, purpose);
    }

    /** Counts tokens, changes and OOV tokens into these accumulators. */
    public Builder countTokens(TokenAccumulators accumulators) {
      this.counters = accumulators;
      return this;
    }

    public DpTextOptions options() {
      return o;
    }

    /**
     * The fingerprint of the key this sanitizer seeds rows with ({@link SecretKey#fingerprint}: tells keys
     * apart without revealing them), null with fresh randomness, which has no key to tell.
     */
    public String keyFingerprint() {
      if (o.idMode() == IdMode.FRESH || o.get(Settings.FRESH_RANDOMNESS)) {
        return null;
      }
      SecretKey k = resolvedKey();
      return k.isFresh() ? null : k.fingerprint();
    }

    /**
     * {@link SecretKey#tag} under the key this sanitizer seeds rows with: a digest only the key's holder can
     * compute (the privacy ledger keys what a release sanitized with it); null with fresh randomness.
     */
    public String keyTag(String label, byte[] message) {
      return keyFingerprint() == null ? null : resolvedKey().tag(label, message);
    }

    /** The key resolved from {@link #resolvedFor}'s key source, read once per configuration. */
    private SecretKey resolved;
    private DpTextOptions resolvedFor;

    /**
     * The key: the one given with {@link #key}, else resolved from the options' key source — once per
     * configuration, so a run reads its key file once (a fresh key is then one key for the whole run).
     */
    SecretKey resolvedKey() {
      if (key != null) {
        return key;
      }
      if (resolved == null || resolvedFor != o) {
        resolved = o.resolveKey();
        resolvedFor = o;
      }
      return resolved;
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
      if (!Classic.is(df.sparkSession())) {
        return onServer(df.sparkSession()).transform(df, inputColumn, outputColumn);
      }
      PartitionedModel partitioned = modelInstance == null ? ModelLoader.partitioned(df.sparkSession(), o) : null;
      if (partitioned != null) {
        if (o.nearestSearch() != NearestSearch.EXACT) {
          throw DpTextErrors.error("NEAREST_SEARCH_PARTITIONED", "search", o.get(Settings.NEAREST_SEARCH),
              "model", o.get(Settings.MODEL), "layoutKey", Settings.MODEL_LAYOUT.confKey(),
              "layout", o.get(Settings.MODEL_LAYOUT));
        }
        SecretKey k = resolvedKey();
        PartitionedSanitizer p = PartitionedSanitizer.of(df.sparkSession(), partitioned, o, k, partitioned.shards());
        return p.transform(df, inputColumn, outputColumn, o.idMode() == IdMode.COLUMN ? idColumn : null, counters);
      }
      UserDefinedFunction udf = udf(df.sparkSession());
      Column text = functions.col(inputColumn);
      Column result =
          o.idMode() == IdMode.COLUMN
              ? udf.apply(text, functions.col(idColumn))
              : udf.apply(text, functions.lit(null).cast(DataTypes.StringType));
      return df.withColumn(outputColumn, result);
    }

    /** Checks the columns before anything is built, with errors that name them. */
    public void validate(StructType schema, String inputColumn) {
      o.checkNearestSearch();
      StructField field = field(schema, inputColumn, "text column");
      if (!field.dataType().equals(DataTypes.StringType)) {
        throw DpTextErrors.error("TEXT_COLUMN_NOT_STRING", "column", inputColumn,
            "type", field.dataType().simpleString());
      }
      if (o.idMode() == IdMode.COLUMN) {
        if (idColumn == null) {
          throw DpTextErrors.error("ID_COLUMN_NOT_GIVEN", "caller", "The sanitizer", "idColumn", "idColumn(...)",
              "contentHash", "seedByContent()", "fresh", "freshRandomness()");
        }
        DataType t = field(schema, idColumn, "id column").dataType();
        if (!(t instanceof org.apache.spark.sql.types.AtomicType)) {
          throw DpTextErrors.error("ID_COLUMN_TYPE_UNSUPPORTED", "column", idColumn, "type", t.simpleString());
        }
      }
    }

    private static StructField field(StructType schema, String name, String role) {
      if (!Arrays.asList(schema.fieldNames()).contains(name)) {
        throw DpTextErrors.error("COLUMN_NOT_IN_INPUT", "role", role, "column", name,
            "columns", Arrays.toString(schema.fieldNames()));
      }
      return schema.apply(name);
    }

    /** The guarantee of the configured mechanism, one sentence (ε, metric, what is not covered). */
    public String guarantee() {
      return o.mechanismSpec().guarantee();
    }

    /**
     * Builds the model, mechanism and broadcast now rather than at {@link #transform}: a job can do
     * this on another thread while Spark reads its input, and {@link #transform} then reuses it (one
     * sanitizer per configuration and Spark context, broadcast, or in local mode handed to the tasks as
     * the driver's object: {@link SanitizerCache}). Not for fresh randomness, which never shares.
     */
    public void prepare(SparkSession spark) {
      if (!Classic.is(spark)) {
        onServer(spark).prepare(spark);
        return;
      }
      if (o.idMode() == IdMode.FRESH) {
        throw new IllegalStateException("prepare() shares the broadcast; fresh randomness never does");
      }
      if (modelInstance == null && ModelLoader.partitioned(spark, o) != null) {
        return; // the partitioned path broadcasts words only, at transform
      }
      if (o.modelDistribution() == ModelDistribution.BROADCAST) {
        SanitizerCache.source(spark, o, modelInstance, resolvedKey());
      }
    }

    /**
     * This configuration as the Spark Connect server's {@code dp_sanitize} call, or where the server has
     * no such function, as this program's UDF whose executors load the model and read the key file
     * ({@link ServerSanitizer#forSession}). Either way the model and the key stay out of the plan, so what only this program holds is refused
     * before anything is read — the key itself, a model in memory, accumulators — each naming what to
     * do instead.
     */
    public ServerSanitizer onServer(SparkSession spark) {
      if (key != null) {
        throw DpTextErrors.error("CONNECT_KEY_GIVEN", "what", "key(SecretKey)", "sources", ServerSanitizer.KEY_SOURCES);
      }
      if (modelInstance != null) {
        throw DpTextErrors.error("CONNECT_MODEL_IN_MEMORY");
      }
      if (counters != null) {
        throw DpTextErrors.error("CONNECT_ACCUMULATORS");
      }
      boolean keyEnvGiven = o.isSet(Settings.KEY_ENV)
          && !o.get(Settings.KEY_ENV).equals(Settings.KEY_ENV.defaultValue().orElse(null));
      ServerSanitizer.checkKeySource(o, keyEnvGiven, System.getenv());
      return ServerSanitizer.forSession(spark, o, idColumn);
    }

    /**
     * The UDF itself, for use in {@code select} or SQL registration. A row function cannot bring its
     * tokens to vocabulary shards, so a model the layout setting keeps partitioned is refused here
     * (loading it whole on every executor is what the layout exists to avoid).
     */
    public UserDefinedFunction udf(SparkSession spark) {
      UserDefinedFunction udf = functions.udf(new SanitizeFunction(checkedSource(spark), counters), DataTypes.StringType)
          .withName(SQL_FUNCTION);
      return o.idMode() == IdMode.FRESH ? udf.asNondeterministic() : udf;
    }

    /** The row function's sanitizer, after the checks that apply to every row function. */
    private SanitizerSource checkedSource(SparkSession spark) {
      // A UDF sent from a Connect client is Java-serialized into its plan, which the server logs: with the
      // sanitizer in it, the key would be there. Refused before the key is resolved.
      Classic.requireClassic(spark, "A dptext UDF built in this program", SanitizerCache.CONNECT_ALTERNATIVE);
      if (modelInstance == null && ModelLoader.partitioned(spark, o) != null) {
        throw DpTextErrors.error("ROW_FUNCTION_PARTITIONED_MODEL", "function", SQL_FUNCTION,
            "model", o.get(Settings.MODEL), "layoutKey", Settings.MODEL_LAYOUT.confKey(),
            "layout", o.get(Settings.MODEL_LAYOUT));
      }
      return o.modelDistribution() == ModelDistribution.PATH
          ? pathSanitizer(spark, this)
          : SanitizerCache.source(spark, o, modelInstance, resolvedKey());
    }

    /**
     * The UDF of {@code dp_sanitize_counted}: the same sanitizer as {@link #udf}, returning each row's text
     * with its token counts ({@link CountingSanitizeFunction#TYPE}).
     */
    UserDefinedFunction countingUdf(SparkSession spark) {
      UserDefinedFunction udf = functions.udf(new CountingSanitizeFunction(checkedSource(spark)),
          CountingSanitizeFunction.TYPE)
          .withName(SQL_FUNCTION_COUNTED);
      return o.idMode() == IdMode.FRESH ? udf.asNondeterministic() : udf;
    }
  }

  /** {@link ModelDistribution#PATH}: the key is resolved on the driver; the model is only hashed here. */
  private static PathSanitizer pathSanitizer(SparkSession spark, Builder b) {
    if (b.modelInstance != null) {
      throw DpTextErrors.error("MODEL_DISTRIBUTION_PATH_IN_MEMORY", "distributionKey",
          Settings.MODEL_DISTRIBUTION.confKey());
    }
    SecretKey key = b.resolvedKey();
    if (b.o.idMode() == IdMode.FRESH || key.isFresh()) {
      LOG.warn("dptext runs with fresh randomness: re-runs and retried tasks give different output");
    }
    return PathSanitizer.prepare(spark, b.o, key);
  }
}
