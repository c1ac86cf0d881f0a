package dev.dptext.job.base;

import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;

/**
 * The job's SparkSession.
 *
 * <ul>
 *   <li>Classic (spark-submit, {@code scripts/dptext}): Delta enabled; {@code local[*]} when not launched by
 *       spark-submit.
 *   <li>Spark Connect ({@code spark-submit --remote sc://… --conf spark.api.mode=connect}, or
 *       {@code SPARK_REMOTE}): a Connect client of that server. Delta, the catalog and dptext's SQL function
 *       are the server's static configuration ({@code spark.sql.extensions} cannot be set by a client:
 *       {@code CANNOT_MODIFY_CONFIG}), and there is no local master to tune.
 *   <li>A local master: Delta's state rebuilds and Spark's shuffles sized to its cores unless the user sized
 *       them ({@link #localSizing}).
 *   <li>A session handed to the job by its caller ({@link #using}: {@link DatabricksTask#run(SparkSession,
 *       String...)}): used as it is, classic or Connect.
 * </ul>
 *
 * Reads the launch settings from the {@code spark.*} system properties, as spark-core's {@code SparkConf}
 * does, and never loads {@code SparkConf}: a Connect client's classpath (a Databricks serverless JAR task)
 * need not have spark-core.
 */
public final class JobSession {
  public static final String DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension";
  public static final String DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog";
  /** Delta's partitions for rebuilding a table's state (the files an overwrite replaces, …); 50 by default. */
  static final String DELTA_SNAPSHOT_PARTITIONS = "spark.databricks.delta.snapshotPartitions";
  /** Spark SQL's partitions of a shuffle (joins, aggregations, windows); 200 by default. */
  static final String SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions";
  /** A local master's shuffle partitions per core ({@link #localSizing}): one, by measurement. */
  static final int SHUFFLE_PARTITIONS_PER_CORE = 1;
  /** Spark 4's switch between a classic session and a Spark Connect client (SPARK-50605). */
  public static final String API_MODE = "spark.api.mode";
  /** The Connect server's address, as spark-submit's {@code --remote} sets it. */
  public static final String REMOTE = "spark.remote";
  /** The Connect server's address, as Spark's Connect clients read it from the environment. */
  static final String REMOTE_ENV = "SPARK_REMOTE";

  private static final Pattern LOCAL = Pattern.compile("local(?:\\[(\\*|\\d+)(?:,\\d+)?])?");

  /** The session a caller handed to the job on this thread, if any. */
  private static final ThreadLocal<SparkSession> GIVEN = new ThreadLocal<>();

  private JobSession() {}

  public static SparkSession get() {
    SparkSession given = GIVEN.get();
    if (given != null) {
      return given;
    }
    return builder(System.getProperties(), System.getenv(), true).getOrCreate();
  }

  /**
   * Runs {@code job} with {@code spark} as the job's session on this thread (commands ask
   * {@link #get}); the previous one, if any, is restored after.
   */
  public static <T> T using(SparkSession spark, Supplier<T> job) {
    SparkSession before = GIVEN.get();
    GIVEN.set(spark);
    try {
      return job.get();
    } finally {
      if (before == null) {
        GIVEN.remove();
      } else {
        GIVEN.set(before);
      }
    }
  }

  /**
   * Whether these launch settings ask for a Spark Connect client: {@code spark.api.mode=connect}, or a
   * remote address ({@code spark.remote}, {@code SPARK_REMOTE}) without {@code spark.api.mode=classic}.
   */
  public static boolean connect(Properties props, Map<String, String> env) {
    String mode = props.getProperty(API_MODE, "").strip().toLowerCase(Locale.ROOT);
    if (!mode.isEmpty()) {
      return mode.equals("connect");
    }
    return props.getProperty(REMOTE) != null || env.get(REMOTE_ENV) != null;
  }

  /**
   * The builder for these launch settings ({@code spark.*} system properties and the environment).
   *
   * @param localDefaults whether to start {@code local[*]} when no master is set (the job does; a
   *     Databricks task, which must run in the cluster's session, does not)
   */
  public static SparkSession.Builder builder(Properties props, Map<String, String> env, boolean localDefaults) {
    if (connect(props, env)) {
      // The builder's own spark.api.mode switch picks the Connect client (Spark's default is classic
      // whenever spark-sql is on the classpath, as it is under spark-submit); the client reads the
      // address from spark.remote or SPARK_REMOTE itself. Static confs are the server's: none is set.
      SparkSession.Builder b = SparkSession.builder().config(API_MODE, "connect");
      String remote = props.getProperty(REMOTE);
      return remote != null ? b.remote(remote) : b;
    }
    SparkSession.Builder b = SparkSession.builder().appName("dptext");
    if (props.getProperty("spark.master") == null && localDefaults) {
      b.master("local[*]");
    }
    String ext = props.getProperty("spark.sql.extensions", "");
    if (!ext.contains(DELTA_EXTENSION)) {
      b.config("spark.sql.extensions", ext.isEmpty() ? DELTA_EXTENSION : ext + "," + DELTA_EXTENSION);
    }
    if (props.getProperty("spark.sql.catalog.spark_catalog") == null) {
      b.config("spark.sql.catalog.spark_catalog", DELTA_CATALOG);
    }
    localSizing(props, localDefaults, Runtime.getRuntime().availableProcessors()).forEach(b::config);
    return b;
  }

  /**
   * What a local master sizes to its cores, for each setting the user did not set (a value the user set wins;
   * a cluster keeps Spark's and Delta's defaults, sized for clusters; a Connect client, which cannot set
   * either, never gets here):
   *
   * <ul>
   *   <li>{@value #DELTA_SNAPSHOT_PARTITIONS}: one per core. Delta rebuilds a table's state in 50 partitions;
   *       in local mode that is 50 tasks on a few cores for a small log (an overwrite of a small table: 2.4 s
   *       less with one per core on two cores, BENCHMARKS.md "Fixed cost of a run"). Same state, fewer tasks.
   *   <li>{@value #SHUFFLE_PARTITIONS}: {@value #SHUFFLE_PARTITIONS_PER_CORE} per core instead of Spark's 200.
   *       Adaptive execution (on by default) coalesces a query's small shuffles, but not a cached one's:
   *       Spark 4.0 plans what {@code cache()} stores with adaptive execution off
   *       ({@code spark.sql.optimizer.canChangeCachedPlanOutputPartitioning} is false), so the evaluations'
   *       cached train/test split (a window by label: one shuffle) was stored in 200 partitions, two of them
   *       non-empty, and MLlib's RDD-based training reads every one on each pass: up to 50 L-BFGS iterations
   *       of logistic regression, IDF, the summarizer and the evaluators, each a job of 200 tasks. {@code
   *       evaluate utility} on 200 IMDb reviews, one cell: 290–331 s, against 58–62 s with one per core, on
   *       two cores (results/bench-local-evaluate-2026-11-28.txt); a {@code --rows} sample escaped it (its sort and
   *       limit leave one partition, which needs no shuffle for the window). One per core was the fastest of
   *       1, 2 and 4 per core there; {@code sanitize} spreads its rows by the default parallelism, not by
   *       this, and its 5,000-review run was no slower.
   * </ul>
   *
   * @param available the machine's cores, for {@code local[*]}
   */
  static Map<String, String> localSizing(Properties props, boolean localDefaults, int available) {
    String master = props.getProperty("spark.master", localDefaults ? "local[*]" : "");
    int cores = localCores(master, available);
    Map<String, String> confs = new java.util.LinkedHashMap<>();
    if (cores > 0 && props.getProperty(DELTA_SNAPSHOT_PARTITIONS) == null) {
      confs.put(DELTA_SNAPSHOT_PARTITIONS, String.valueOf(cores));
    }
    if (cores > 0 && props.getProperty(SHUFFLE_PARTITIONS) == null) {
      confs.put(SHUFFLE_PARTITIONS, String.valueOf(SHUFFLE_PARTITIONS_PER_CORE * cores));
    }
    return confs;
  }

  /**
   * The cores of a local master ({@code local}, {@code local[N]}, {@code local[*]}, {@code local[N,F]}),
   * or 0 for any other master (a cluster, {@code local-cluster[…]}).
   */
  static int localCores(String master, int available) {
    Matcher m = LOCAL.matcher(master.strip());
    if (!m.matches()) {
      return 0;
    }
    if (m.group(1) == null) {
      return 1;
    }
    return m.group(1).equals("*") ? available : Math.max(1, Integer.parseInt(m.group(1)));
  }
}
