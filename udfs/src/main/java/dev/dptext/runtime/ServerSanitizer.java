package dev.dptext.runtime;

import dev.dptext.config.Setting;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.sanitizer.TokenTotals;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.settings.ModelDistribution;
import dev.dptext.settings.Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Sanitizing on a Spark Connect session: the server builds the model and resolves the key; this program
 * only names them.
 *
 * <p>Why: a Connect client's plan is a protobuf that the server logs and shows in its UI. A
 * Java-serialized UDF carrying the sanitizer (or the key) would put the key there. Instead the query
 * calls the server's SQL function {@code dp_sanitize} ({@code dev.dptext.spark.DpTextExtensions} in the server's
 * {@code spark.sql.extensions}) by name, with the run's settings as its options map (the mechanism, the
 * model's path, the key's SOURCE: a key file's path or a Databricks secret's name, never the key). The
 * server builds the sanitizer when it analyses the plan and hands it to its tasks as it does for SQL
 * (broadcast, or per executor from the model's path: the server's {@code modelDistribution}).
 *
 * <p>The query carries its settings itself, so nothing of the session is changed: a DataFrame run later,
 * each micro-batch of a stream and other users of the session all get exactly these settings. Every
 * setting is sent (an unset one as NULL, its default), so the server's own {@code spark.dptext.*} values
 * cannot change the output; the key's source is sent only when given, so a source the server was started
 * with still applies.
 *
 * <p>The key is never read here: {@code spark.dptext.secretKey} is not asked for (a Connect server
 * answers a client's conf request in clear), a key file is read by the server, and a key in this
 * program's environment is refused ({@link #checkKeySource}).
 */
public final class ServerSanitizer implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  /** Where the key may be named for a Connect server; for messages. */
  public static final String KEY_SOURCES = Settings.KEY_FILE.confKey() + " (--key-file: a key file the server can "
      + "read, e.g. on a /Volumes path) or " + Settings.DATABRICKS_SECRET.confKey() + " (--databricks-secret SCOPE/KEY), "
      + "or " + Settings.SECRET_KEY.confKey() + " in the server's start-up conf";

  /** Setting name → text (null: the default), as sent in the function's options map. */
  private final LinkedHashMap<String, String> settings;
  private final IdMode idMode;
  private final String idColumn;
  /**
   * For a server without {@code dp_sanitize}: the recipe this program's UDF carries to the executors
   * (settings, the model's SHA-256, the key's fingerprint; never the key); null to call the server's
   * function.
   */
  private final PathSanitizer recipe;

  private ServerSanitizer(LinkedHashMap<String, String> settings, IdMode idMode, String idColumn,
      PathSanitizer recipe) {
    this.settings = settings;
    this.idMode = idMode;
    this.idColumn = idColumn;
    this.recipe = recipe;
  }

  /**
   * Checks that the key can be named to the server: {@code keyEnv} names a variable of THIS program's
   * environment, which only a classic driver reads; on Connect the key would have to travel to the
   * server inside a plan or a conf, so it is refused before anything is read.
   *
   * @param keyEnvGiven whether keyEnv was given explicitly (its default only applies when the
   *     variable it names is set here)
   * @throws IllegalArgumentException naming the sources that work on Connect
   */
  public static void checkKeySource(DpTextOptions options, boolean keyEnvGiven, Map<String, String> environment) {
    String variable = options.get(Settings.KEY_ENV);
    if (keyEnvGiven) {
      throw DpTextErrors.error("CONNECT_KEY_ENV", "keyEnvKey", Settings.KEY_ENV.confKey(), "variable", variable,
          "sources", KEY_SOURCES);
    }
    boolean named = options.get(Settings.KEY_FILE) != null || options.get(Settings.DATABRICKS_SECRET) != null;
    boolean fresh = options.get(Settings.FRESH_RANDOMNESS) || options.idMode() == IdMode.FRESH;
    if (!named && !fresh && environment.get(variable) != null) {
      throw DpTextErrors.error("CONNECT_KEY_IN_ENVIRONMENT", "variable", variable, "sources", KEY_SOURCES);
    }
  }

  /**
   * The server-side sanitizer of {@code options} (the key's source checked by the caller with
   * {@link #checkKeySource}; the key itself refused).
   *
   * @param idColumn the id column for {@link IdMode#COLUMN}, else null
   * @throws IllegalArgumentException when the options hold the key itself, or name no id column in
   *     {@link IdMode#COLUMN}
   */
  public static ServerSanitizer of(DpTextOptions options, String idColumn) {
    if (options.isSet(Settings.SECRET_KEY)) {
      throw DpTextErrors.error("CONNECT_KEY_GIVEN", "what", Settings.SECRET_KEY.confKey() + " in the options",
          "sources", KEY_SOURCES);
    }
    if (options.idMode() == IdMode.COLUMN && idColumn == null) {
      throw DpTextErrors.error("ID_COLUMN_NOT_GIVEN", "caller", "The sanitizer", "idColumn", "idColumn(...)",
          "contentHash", "seedByContent()", "fresh", "freshRandomness()");
    }
    LinkedHashMap<String, String> settings = new LinkedHashMap<>();
    for (Setting<?> setting : Settings.options()) {
      if (setting == Settings.KEY_ENV) {
        continue; // the server's own environment: checkKeySource refused a variable named here
      }
      String value = text(options, setting);
      boolean keySource = setting == Settings.KEY_FILE || setting == Settings.DATABRICKS_SECRET;
      if (value == null && keySource) {
        continue;
      }
      settings.put(setting.name(), value != null && (setting == Settings.KEY_FILE || setting == Settings.MODEL)
          ? absolute(value) : value);
    }
    return new ServerSanitizer(settings, options.idMode(), options.idMode() == IdMode.COLUMN ? idColumn : null, null);
  }

  /**
   * The server's {@code dp_sanitize} when its session has the function ({@link #of}), else this
   * program's own UDF ({@link #viaUdf}): a Databricks serverless session loads no extension.
   */
  public static ServerSanitizer forSession(SparkSession spark, DpTextOptions options, String idColumn) {
    return spark.catalog().functionExists(SqlFunctionNames.SANITIZE) ? of(options, idColumn)
        : viaUdf(spark, options, idColumn);
  }

  /**
   * For a Spark Connect server without {@code dp_sanitize} (Databricks serverless, or any server without
   * dptext's extension): a UDF of this program (its jar added to the session when the server cannot load
   * dptext's classes: {@link ServerClasses}) whose closure is the recipe of
   * {@link ModelDistribution#PATH} without the key. Each executor loads the model from its path (checking
   * its SHA-256 against this program's) and reads the key from the key file named by {@code keyFile},
   * checking its fingerprint against the one this program read: the plan carries the file's path and a
   * fingerprint, never the key.
   *
   * @throws IllegalArgumentException without a key file (a Databricks secret or an environment variable
   *     cannot be read by executors), or when this program cannot read it
   */
  public static ServerSanitizer viaUdf(SparkSession spark, DpTextOptions options, String idColumn) {
    ServerSanitizer named = of(options, idColumn);
    boolean fresh = options.get(Settings.FRESH_RANDOMNESS) || options.idMode() == IdMode.FRESH;
    String keyFile = options.get(Settings.KEY_FILE);
    String fingerprint = null;
    if (!fresh) {
      if (keyFile == null || options.get(Settings.DATABRICKS_SECRET) != null) {
        throw DpTextErrors.error("CONNECT_NO_EXTENSION_NEEDS_KEY_FILE", "function", SqlFunctionNames.SANITIZE,
            "keyFileKey", Settings.KEY_FILE.confKey(), "extensions", SqlFunctionNames.EXTENSIONS);
      }
      fingerprint = dev.dptext.random.SecretKey.fromFile(Path.of(absolute(keyFile))).fingerprint();
    }
    DpTextOptions recipeOptions = options;
    for (Setting<?> s : List.of(Settings.KEY_FILE, Settings.MODEL)) {
      String v = text(options, s);
      if (v != null) {
        recipeOptions = recipeOptions.withText(s, absolute(v));
      }
    }
    PathSanitizer recipe = PathSanitizer.withoutKey(spark, recipeOptions, fingerprint);
    ServerClasses.ensure(spark);
    return new ServerSanitizer(named.settings, named.idMode, named.idColumn, recipe);
  }

  private static <T> String text(DpTextOptions options, Setting<T> setting) {
    return options.isSet(setting) ? setting.format(options.get(setting)) : null;
  }

  /**
   * A local path made absolute: the server resolves a relative path against its own working directory,
   * this program's user meant this program's. URIs ({@code s3://…}, {@code dbfs:/…}), absolute paths and
   * the embedded default model are kept.
   */
  public static String absolute(String path) {
    if (path.equals("default") || path.contains(":") || path.startsWith("/")) {
      return path;
    }
    return Path.of(path).toAbsolutePath().normalize().toString();
  }

  /**
   * Has the server build the sanitizer now (the model, the key), so a missing key or model fails before
   * any data is read, and the run's transform then reuses it (the server caches it per configuration).
   * Not for fresh randomness, whose sanitizer is never shared.
   */
  public void prepare(SparkSession spark) {
    if (idMode == IdMode.FRESH || recipe != null) { // a UDF's recipe is checked on the executors
      return;
    }
    List<Column> args = new ArrayList<>(List.of(functions.lit("")));
    if (idMode == IdMode.COLUMN) {
      args.add(functions.lit("dptext-prepare"));
    }
    args.add(optionsMap());
    // Analysis alone resolves the function, which builds the sanitizer on the server: no job runs.
    spark.range(1).select(functions.call_function(SqlFunctionNames.SANITIZE, args.toArray(new Column[0]))).schema();
  }

  /** The settings as the function's options argument: a map literal (NULL values: the defaults). */
  private Column optionsMap() {
    List<Column> kv = new ArrayList<>();
    for (Map.Entry<String, String> e : settings.entrySet()) {
      kv.add(functions.lit(e.getKey()));
      kv.add(e.getValue() == null ? functions.lit(null).cast("string") : functions.lit(e.getValue()));
    }
    return functions.map(kv.toArray(new Column[0]));
  }

  /**
   * {@code df} with {@code outputColumn} the server's {@code dp_sanitize} of {@code inputColumn} (keyed
   * by the id column, or by content or freshly, as the options say).
   */
  public Dataset<Row> transform(Dataset<Row> df, String inputColumn, String outputColumn) {
    return df.withColumn(outputColumn, call(SqlFunctionNames.SANITIZE, inputColumn));
  }

  /**
   * As {@link #transform}, with the rows' token counts summed as the rows are computed: the server's
   * {@code dp_sanitize_counted} returns each row's text with its counts (the same sanitizer, the same
   * text), and {@code Dataset.observe} sums them ({@link #totals} once the action ran). The counts, like a
   * classic run's accumulators, are those of the rows the query computed: a plan that reads its source
   * twice (MERGE) would count twice, so use {@link #transform} there.
   */
  public Dataset<Row> transformCounted(Dataset<Row> df, String inputColumn, String outputColumn) {
    String struct = "_dptext_sanitized";
    while (java.util.Arrays.asList(df.columns()).contains(struct)) {
      struct = "_" + struct;
    }
    observation = new org.apache.spark.sql.Observation("dptext_tokens_" + java.util.UUID.randomUUID().toString()
        .replace("-", ""));
    String[] fields = {"tokens", "changed", "outOfVocabulary", "searchQueries", "searchWanted", "searchFound"};
    // The rows' count, then the token sums: observe takes its first metric apart from the rest.
    Column[] sums = new Column[fields.length];
    for (int i = 0; i < fields.length; i++) {
      sums[i] = functions.sum(functions.col(struct + "." + fields[i])).as(fields[i]);
    }
    return df.withColumn(struct, call(SqlFunctionNames.SANITIZE_COUNTED, inputColumn))
        .observe(observation, functions.count(functions.lit(1)).as(ROWS), sums)
        .withColumn(outputColumn, functions.col(struct + ".text"))
        .drop(struct);
  }

  private Column call(String function, String inputColumn) {
    Column text = functions.col(inputColumn);
    if (recipe != null) {
      org.apache.spark.sql.expressions.UserDefinedFunction udf = function.equals(SqlFunctionNames.SANITIZE)
          ? functions.udf(new SanitizeFunction(recipe, null), org.apache.spark.sql.types.DataTypes.StringType)
          : functions.udf(new CountingSanitizeFunction(recipe), CountingSanitizeFunction.TYPE);
      udf = (idMode == IdMode.FRESH ? udf.asNondeterministic() : udf).withName(function);
      return udf.apply(text, idMode == IdMode.COLUMN ? functions.col(idColumn)
          : functions.lit(null).cast(org.apache.spark.sql.types.DataTypes.StringType));
    }
    return idMode == IdMode.COLUMN
        ? functions.call_function(function, text, functions.col(idColumn), optionsMap())
        : functions.call_function(function, text, optionsMap());
  }

  /** The observed metric of {@link #transformCounted}: the rows it sanitized. */
  private static final String ROWS = "rows";

  private transient org.apache.spark.sql.Observation observation;
  private transient Map<String, Object> observed;

  /**
   * The token counts of {@link #transformCounted}'s rows, once an action on them has run; empty when the
   * server did not send them within {@code wait} (a write whose observed metrics do not come back).
   */
  public Optional<TokenTotals> totals(java.time.Duration wait) {
    return observed(wait).map(Observed::new);
  }

  /**
   * How many rows {@link #transformCounted} sanitized, once an action on them has run; empty as for
   * {@link #totals}. Counted where the rows are sanitized: in a write, the stage that writes, whose tasks'
   * figures Spark merges once each (a re-run task is not counted twice).
   */
  public java.util.OptionalLong rowsSanitized(java.time.Duration wait) {
    Optional<Map<String, Object>> m = observed(wait);
    return m.isPresent() && m.get().get(ROWS) instanceof Number n ? java.util.OptionalLong.of(n.longValue())
        : java.util.OptionalLong.empty();
  }

  private Optional<Map<String, Object>> observed(java.time.Duration wait) {
    if (observed != null) {
      return Optional.of(observed);
    }
    if (observation == null) {
      return Optional.empty();
    }
    org.apache.spark.sql.Observation o = observation;
    java.util.concurrent.CompletableFuture<Map<String, Object>> metrics = new java.util.concurrent.CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        metrics.complete(o.getAsJava());
      } catch (InterruptedException | RuntimeException e) {
        metrics.completeExceptionally(e);
      }
    }, "dptext-observed-tokens");
    t.setDaemon(true); // an observation never filled must not keep the JVM alive
    t.start();
    try {
      Map<String, Object> m = metrics.get(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      if (m.isEmpty()) {
        return Optional.empty();
      }
      observed = m;
      return Optional.of(m);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      t.interrupt();
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Token totals read from observed metrics (a sum over no rows is null: 0). */
  private record Observed(Map<String, Object> metrics) implements TokenTotals {
    private long get(String name) {
      Object v = metrics.get(name);
      return v == null ? 0 : ((Number) v).longValue();
    }

    @Override
    public long tokens() {
      return get("tokens");
    }

    @Override
    public long changed() {
      return get("changed");
    }

    @Override
    public long outOfVocabulary() {
      return get("outOfVocabulary");
    }

    @Override
    public dev.dptext.knn.SearchTally search() {
      dev.dptext.knn.SearchTally t = new dev.dptext.knn.SearchTally();
      t.queries = get("searchQueries");
      t.wanted = get("searchWanted");
      t.found = get("searchFound");
      return t;
    }
  }
}
