package dev.dptext.spark;

import dev.dptext.config.Setting;
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
 * Java-serialized UDF carrying the sanitizer (or the key) would put the key there. Instead the client
 * sets the session's {@code spark.dptext.*} runtime settings (the mechanism, the model's path, the key's
 * SOURCE: a key file's path or a Databricks secret's name, never the key) and calls the server's SQL
 * function {@code dp_sanitize} ({@link DpTextExtensions} in the server's {@code spark.sql.extensions})
 * by name. The server reads those settings when it analyses the plan, builds the sanitizer and hands it
 * to its tasks as it does for SQL (broadcast, or per executor from the model's path: the server's
 * {@code modelDistribution}).
 *
 * <p>The key is never read here: {@code spark.dptext.secretKey} is not asked for (a Connect server
 * answers a client's conf request in clear), a key file is read by the server, and a key in this
 * program's environment is refused ({@link #checkKeySource}).
 *
 * <p>The session's dptext settings are the caller's shared state (a notebook's, a Databricks task's):
 * {@link #close} restores each to what it was.
 */
public final class ServerSanitizer implements AutoCloseable {
  /** Where the key may be named for a Connect server; for messages. */
  static final String KEY_SOURCES = Settings.KEY_FILE.confKey() + " (--key-file: a key file the server can read, "
      + "e.g. on a /Volumes path) or " + Settings.DATABRICKS_SECRET.confKey() + " (--databricks-secret SCOPE/KEY), "
      + "or " + Settings.SECRET_KEY.confKey() + " in the server's start-up conf";

  private final SparkSession spark;
  private final DpTextOptions options;
  private final String idColumn;
  private final Map<String, Optional<String>> before = new LinkedHashMap<>();

  private ServerSanitizer(SparkSession spark, DpTextOptions options, String idColumn) {
    this.spark = spark;
    this.options = options;
    this.idColumn = idColumn;
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
      throw new IllegalArgumentException("The key is named by " + Settings.KEY_ENV.confKey() + "=" + variable
          + " (--key-env), a variable of this program's environment; on Spark Connect the server resolves the key "
          + "and this program never sends it. Name it with " + KEY_SOURCES);
    }
    boolean named = options.get(Settings.KEY_FILE) != null || options.get(Settings.DATABRICKS_SECRET) != null;
    boolean fresh = options.get(Settings.FRESH_RANDOMNESS) || options.idMode() == IdMode.FRESH;
    if (!named && !fresh && environment.get(variable) != null) {
      throw new IllegalArgumentException("The environment variable " + variable + " holds a key here, but on Spark "
          + "Connect the server resolves the key and this program never sends it (a classic run would have used "
          + "it; the server would use another key or none). Name it with " + KEY_SOURCES);
    }
  }

  /**
   * Sets the session's {@code spark.dptext.*} settings to {@code options} (every setting the options
   * give; the others unset, so the server's start-up values cannot change the output; the key's
   * source only when given, so a source the server was started with still applies).
   *
   * @param idColumn the id column for {@link IdMode#COLUMN}, else null
   */
  public static ServerSanitizer open(SparkSession spark, DpTextOptions options, String idColumn) {
    ServerSanitizer s = new ServerSanitizer(spark, options, idColumn);
    try {
      for (Setting<?> setting : Settings.options()) {
        if (setting == Settings.KEY_ENV) {
          continue; // the server's own environment: checkKeySource refused a variable named here
        }
        String key = setting.confKey();
        String value = text(options, setting);
        boolean keySource = setting == Settings.KEY_FILE || setting == Settings.DATABRICKS_SECRET;
        if (value == null && keySource) {
          continue;
        }
        s.before.put(key, Optional.ofNullable(spark.conf().getOption(key).getOrElse(() -> null)));
        if (value == null) {
          spark.conf().unset(key);
        } else {
          spark.conf().set(key, setting == Settings.KEY_FILE || setting == Settings.MODEL ? absolute(value) : value);
        }
      }
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
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
  public void prepare() {
    if (options.idMode() == IdMode.FRESH) {
      return;
    }
    List<Column> args = new ArrayList<>(List.of(functions.lit("")));
    if (options.idMode() == IdMode.COLUMN) {
      args.add(functions.lit("dptext-prepare"));
    }
    // Analysis alone resolves the function, which builds the sanitizer on the server: no job runs.
    spark.range(1).select(functions.call_function(DpText.SQL_FUNCTION, args.toArray(new Column[0]))).schema();
  }

  /**
   * {@code df} with {@code outputColumn} the server's {@code dp_sanitize} of {@code inputColumn} (keyed
   * by the id column, or by content or freshly, as the options say).
   */
  public Dataset<Row> transform(Dataset<Row> df, String inputColumn, String outputColumn) {
    return df.withColumn(outputColumn, call(DpText.SQL_FUNCTION, inputColumn));
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
    Column[] sums = new Column[fields.length];
    for (int i = 0; i < fields.length; i++) {
      sums[i] = functions.sum(functions.col(struct + "." + fields[i])).as(fields[i]);
    }
    return df.withColumn(struct, call(DpText.SQL_FUNCTION_COUNTED, inputColumn))
        .observe(observation, sums[0], java.util.Arrays.copyOfRange(sums, 1, sums.length))
        .withColumn(outputColumn, functions.col(struct + ".text"))
        .drop(struct);
  }

  private Column call(String function, String inputColumn) {
    Column text = functions.col(inputColumn);
    return options.idMode() == IdMode.COLUMN
        ? functions.call_function(function, text, functions.col(idColumn))
        : functions.call_function(function, text);
  }

  private org.apache.spark.sql.Observation observation;

  /**
   * The token counts of {@link #transformCounted}'s rows, once an action on them has run; empty when the
   * server did not send them within {@code wait} (a write whose observed metrics do not come back).
   */
  public Optional<TokenTotals> totals(java.time.Duration wait) {
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
      return Optional.of(new Observed(m));
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

  /** Restores the session's dptext settings to what they were before {@link #open}. */
  @Override
  public void close() {
    for (Map.Entry<String, Optional<String>> e : before.entrySet()) {
      try {
        if (e.getValue().isPresent()) {
          spark.conf().set(e.getKey(), e.getValue().get());
        } else {
          spark.conf().unset(e.getKey());
        }
      } catch (RuntimeException ignored) {
        // A session that is gone has no settings to restore.
      }
    }
    before.clear();
  }
}
