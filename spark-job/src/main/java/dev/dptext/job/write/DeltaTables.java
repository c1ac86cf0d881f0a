package dev.dptext.job.write;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dptext.job.base.TableName;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * What the write path reads of a Delta table, through Delta's public SQL only ({@code DESCRIBE
 * HISTORY}, {@code DESCRIBE DETAIL}, {@code SHOW TBLPROPERTIES}): the same calls work on open-source
 * Delta, on Databricks Runtime (whose Delta classes live in another package, so Delta's internal
 * {@code DeltaLog} is absent there) and through a Spark Connect session.
 *
 * <p>Delta's transaction ids ({@code txnAppId}/{@code txnVersion}) are not in any public view of a
 * table, so dptext writes them, with the run's audit, into the commit's {@code userMetadata} (atomic
 * with the rows: {@link #RUN}, {@link #TXN_APP_ID}, {@link #TXN_VERSION}) and reads them back from the
 * history. The history is bounded by the table's log retention ({@code delta.logRetentionDuration},
 * 30 days by default): a transaction older than that is no longer found here, but Delta itself still
 * skips its repeat, and the writer then reports the skipped write (see {@link TableWriter}).
 */
public final class DeltaTables {
  /** userMetadata key: this run's id, to find its own commit in the history. */
  public static final String RUN = "dptext.run";
  /** userMetadata key: the commit's Delta transaction app id. */
  static final String TXN_APP_ID = "dptext.txnAppId";
  /** userMetadata key: the commit's Delta transaction version. */
  static final String TXN_VERSION = "dptext.txnVersion";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Delta's public conflict exceptions ({@code io.delta.exceptions}), by simple name. */
  private static final Set<String> CONFLICTS = Set.of("ConcurrentAppendException", "ConcurrentDeleteDeleteException",
      "ConcurrentDeleteReadException", "ConcurrentTransactionException", "ConcurrentWriteException",
      "MetadataChangedException", "ProtocolChangedException");

  private DeltaTables() {}

  /**
   * The SQL identifier of the Delta table at {@code path}: a catalog table's name as given
   * ({@link TableName}), else {@code delta.`…`} with the path qualified (it takes absolute paths only).
   */
  public static String ident(SparkSession spark, String path) {
    if (TableName.is(spark, path)) {
      return path;
    }
    return "delta.`" + OutputLocation.qualified(spark, path).replace("`", "``") + "`";
  }

  /** The table's history, newest first. */
  static Dataset<Row> history(SparkSession spark, String path) {
    return spark.sql("DESCRIBE HISTORY " + ident(spark, path));
  }

  /** The latest committed version (reads only the newest commit). */
  public static long latestVersion(SparkSession spark, String path) {
    return spark.sql("DESCRIBE HISTORY " + ident(spark, path) + " LIMIT 1").first().<Long>getAs("version");
  }

  /** The commit of {@code version}. */
  public static Row commit(SparkSession spark, String path, long version) {
    return history(spark, path).where(functions.col("version").equalTo(version)).first();
  }

  /** The newest commits a history read looks at first: a stream's table can have thousands. */
  private static final int RECENT = 32;

  /**
   * The commit whose userMetadata carries {@code runId} (a new UUID per write, so a commit carrying it is
   * the run's own), if it was made. The newest commit is read first: unless another writer committed
   * meanwhile it is the run's, and a history read costs per commit file it opens (LIMIT 1 against LIMIT
   * 32: ~0.1 s less per write on a small table, BENCHMARKS.md). Then the newest {@value #RECENT}, then
   * the whole history, so a table with a long history (a stream's thousands of micro-batches) is not
   * read whole after each write.
   */
  static Optional<Row> commitOfRun(SparkSession spark, String path, String runId) {
    for (String limit : new String[] {" LIMIT 1", " LIMIT " + RECENT, ""}) {
      List<Row> rows = spark.sql("DESCRIBE HISTORY " + ident(spark, path) + limit)
          .where(functions.col("userMetadata").contains("\"" + runId + "\"")).collectAsList();
      Optional<Row> found = rows.stream().filter(r -> runId.equals(metadata(r).get(RUN))).findFirst();
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  /** The versions committed after {@code version}, oldest first. */
  static List<Long> versionsAfter(SparkSession spark, String path, long version) {
    List<Long> versions = new ArrayList<>();
    for (Row r : history(spark, path).where(functions.col("version").gt(version)).select("version")
        .orderBy("version").collectAsList()) {
      versions.add(r.getLong(0));
    }
    return versions;
  }

  /**
   * The highest {@code txnVersion} the history records for {@code appId} (commits dptext made with
   * that transaction), if any. Delta commits a transaction only with a higher version than the one it
   * holds, so the newest such commit has the highest: the newest commits are read first, the whole
   * history only when they hold none of the app's and there are more.
   */
  static OptionalLong transactionVersion(SparkSession spark, String path, String appId) {
    List<Row> recent = spark.sql("DESCRIBE HISTORY " + ident(spark, path) + " LIMIT " + RECENT)
        .select("userMetadata").collectAsList();
    OptionalLong best = highestVersion(recent.stream().map(DeltaTables::metadata).toList(), appId);
    if (best.isPresent() || recent.size() < RECENT) {
      return best;
    }
    return highestVersion(dptextCommits(spark, path, appId), appId);
  }

  private static OptionalLong highestVersion(List<Map<String, String>> commits, String appId) {
    OptionalLong best = OptionalLong.empty();
    for (Map<String, String> m : commits) {
      if (appId.equals(m.get(TXN_APP_ID)) && m.get(TXN_VERSION) != null) {
        long v = Long.parseLong(m.get(TXN_VERSION));
        if (best.isEmpty() || v > best.getAsLong()) {
          best = OptionalLong.of(v);
        }
      }
    }
    return best;
  }

  /** What dptext's commits of one transaction app added: how many commits, rows, and the last version. */
  public record AppCommits(int commits, long rows, long lastVersion) {}

  /**
   * The commits after {@code after} that dptext made with transaction app id {@code appId} (a stream's
   * micro-batches), with the rows they added ({@code operationMetrics.numOutputRows}).
   */
  public static AppCommits commitsOf(SparkSession spark, String path, String appId, long after) {
    int commits = 0;
    long rows = 0;
    long last = -1;
    for (Row r : history(spark, path).where(functions.col("version").gt(after)
        .and(functions.col("userMetadata").contains(appId))).collectAsList()) {
      if (!appId.equals(metadata(r).get(TXN_APP_ID))) {
        continue;
      }
      commits++;
      Map<String, String> metrics = r.getJavaMap(r.fieldIndex("operationMetrics"));
      rows += metrics == null || metrics.get("numOutputRows") == null ? 0 : Long.parseLong(metrics.get("numOutputRows"));
      last = Math.max(last, r.<Long>getAs("version"));
    }
    return new AppCommits(commits, rows, last);
  }

  /**
   * What one read of a table's history says about the transactions dptext committed to it: the latest
   * version, and per transaction app id the highest {@code txnVersion} (Delta commits an app's
   * transactions with rising versions). A stream's start has three questions — the version it starts
   * from, which streams fed the table, whether its first micro-batch is a replay — and each was a history
   * read of its own; this answers all three from one, read on the server side so that only one row per
   * app id comes back, not every commit's audit.
   *
   * @param latestVersion the newest commit's version, -1 when there is no Delta table
   */
  public record Transactions(long latestVersion, Map<String, Long> highest) implements java.io.Serializable {
    /** No table: no version, no transactions. */
    public static final Transactions NONE = new Transactions(-1, Map.of());

    public Transactions {
      highest = Map.copyOf(highest);
    }

    /** The highest version committed with {@code appId}, if any. */
    public OptionalLong of(String appId) {
      Long v = highest.get(appId);
      return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }

    /** The app ids starting with {@code prefix}. */
    public Set<String> apps(String prefix) {
      Set<String> apps = new TreeSet<>();
      for (String app : highest.keySet()) {
        if (app.startsWith(prefix)) {
          apps.add(app);
        }
      }
      return apps;
    }
  }

  /** {@link Transactions} of the Delta table at {@code path}, in one read of its whole history. */
  public static Transactions transactions(SparkSession spark, String path) {
    // Bracket paths: the keys hold dots. get_json_object yields null for another writer's free-form
    // userMetadata, as metadata() ignores it.
    org.apache.spark.sql.Column app = functions.get_json_object(functions.col("userMetadata"), "$['" + TXN_APP_ID + "']");
    org.apache.spark.sql.Column txn = functions.get_json_object(functions.col("userMetadata"), "$['" + TXN_VERSION + "']")
        .cast("long");
    long latest = -1;
    Map<String, Long> highest = new LinkedHashMap<>();
    for (Row r : history(spark, path).groupBy(app.as("app")).agg(functions.max("version"), functions.max(txn))
        .collectAsList()) {
      latest = Math.max(latest, r.isNullAt(1) ? -1 : r.getLong(1));
      if (!r.isNullAt(0) && !r.isNullAt(2)) {
        highest.put(r.getString(0), r.getLong(2));
      }
    }
    return new Transactions(latest, highest);
  }

  /** userMetadata maps of the commits whose userMetadata mentions {@code text}. */
  private static List<Map<String, String>> dptextCommits(SparkSession spark, String path, String text) {
    List<Map<String, String>> out = new ArrayList<>();
    for (Row r : history(spark, path).where(functions.col("userMetadata").contains(text)).select("userMetadata")
        .collectAsList()) {
      out.add(metadata(r));
    }
    return out;
  }

  /** A commit's userMetadata as the flat JSON object dptext writes; empty for anything else. */
  public static Map<String, String> metadata(Row commit) {
    return metadata(commit.<String>getAs("userMetadata"));
  }

  /** A userMetadata text as the flat JSON object dptext writes; empty for anything else (or null). */
  public static Map<String, String> metadata(String text) {
    Map<String, String> m = new LinkedHashMap<>();
    if (text == null) {
      return m;
    }
    try {
      JsonNode node = JSON.readTree(text);
      if (node != null && node.isObject()) {
        node.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
      }
    } catch (IOException e) {
      // Not dptext's: another writer's free-form userMetadata.
    }
    return m;
  }

  /** The table's id, partition columns and properties ({@code DESCRIBE DETAIL}). */
  public record Detail(String id, List<String> partitionColumns, Map<String, String> properties) {}

  public static Detail detail(SparkSession spark, String path) {
    Row d = spark.sql("DESCRIBE DETAIL " + ident(spark, path)).first();
    List<String> partitions = new ArrayList<>(d.<String>getList(d.fieldIndex("partitionColumns")));
    Map<String, String> props = new LinkedHashMap<>(
        scala.jdk.javaapi.CollectionConverters.asJava(d.<String, String>getMap(d.fieldIndex("properties"))));
    return new Detail(d.getAs("id"), partitions, props);
  }

  /**
   * Table property: the SHA-256 of the audit the properties were last set to ({@link #setPropertiesIfChanged}),
   * a value Spark's redaction never hides.
   */
  static final String AUDIT_DIGEST = "dptext.audit.sha256";

  /** What Spark shows in place of a redacted value ({@code spark.redaction.regex}). */
  private static final String REDACTED = "*********";

  /**
   * Sets {@code inherited} (a new table's settings from the table it replaces) and {@code audit}, with the
   * audit's {@link #AUDIT_DIGEST}, as table properties ({@code ALTER TABLE … SET TBLPROPERTIES}), unless
   * the table already says exactly this: a nightly run with unchanged settings adds no commit.
   *
   * <p>Read with {@code SHOW TBLPROPERTIES}, a look at the table's metadata (20–60 ms warm here), not
   * {@code DESCRIBE DETAIL}, which rebuilds the table's state after each commit to count its files
   * (0.6–0.9 s on a 16-row table). {@code SHOW TBLPROPERTIES} redacts every value whose key or value
   * matches Spark's redaction pattern ({@code spark.redaction.regex}: "token", "secret", …), and dptext's
   * guarantee text speaks of tokens: a value shown redacted is vouched for by the digest, every other
   * value is compared as it is.
   */
  static void setPropertiesIfChanged(SparkSession spark, String path, Map<String, String> inherited,
      Map<String, String> audit) {
    if (inherited.isEmpty() && audit.isEmpty()) {
      return;
    }
    Map<String, String> wanted = new LinkedHashMap<>(inherited);
    wanted.putAll(audit);
    if (!audit.isEmpty()) {
      wanted.put(AUDIT_DIGEST, digest(audit));
    }
    Map<String, String> current = new LinkedHashMap<>();
    for (Row r : spark.sql("SHOW TBLPROPERTIES " + ident(spark, path)).collectAsList()) {
      current.put(r.getString(0), r.getString(1));
    }
    boolean digestHolds = !audit.isEmpty() && wanted.get(AUDIT_DIGEST).equals(current.get(AUDIT_DIGEST));
    boolean same = wanted.entrySet().stream().allMatch(e -> e.getValue().equals(current.get(e.getKey()))
        || (digestHolds && audit.containsKey(e.getKey()) && String.valueOf(current.get(e.getKey())).startsWith(REDACTED)));
    if (same) {
      return;
    }
    StringBuilder props = new StringBuilder();
    for (Map.Entry<String, String> e : wanted.entrySet()) {
      if (props.length() > 0) {
        props.append(", ");
      }
      props.append(OutputFormat.sqlString(e.getKey())).append(" = ").append(OutputFormat.sqlString(e.getValue()));
    }
    spark.sql("ALTER TABLE " + ident(spark, path) + " SET TBLPROPERTIES (" + props + ")");
  }

  /** The SHA-256 of {@code audit}'s entries in key order, as hex. */
  static String digest(Map<String, String> audit) {
    try {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      for (Map.Entry<String, String> e : new java.util.TreeMap<>(audit).entrySet()) {
        for (String part : new String[] {e.getKey(), e.getValue()}) {
          byte[] b = part.getBytes(java.nio.charset.StandardCharsets.UTF_8);
          sha.update(java.nio.ByteBuffer.allocate(4).putInt(b.length).array()); // length-prefixed: unambiguous
          sha.update(b);
        }
      }
      return java.util.HexFormat.of().formatHex(sha.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Whether {@code e} (or a cause) is Delta's report of a conflicting concurrent commit: matched by
   * error condition, which survives Spark Connect (where the client sees no Delta exception class), and
   * by the name of Delta's public exception type ({@code io.delta.exceptions}) on a classic session.
   */
  static boolean isConflict(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (CONFLICTS.contains(t.getClass().getSimpleName())) {
        return true; // io.delta.exceptions.*, named, not loaded: a Connect client has no Delta classes
      }
      if (t instanceof org.apache.spark.SparkThrowable st && st.getCondition() != null
          && (st.getCondition().startsWith("DELTA_CONCURRENT") || st.getCondition().equals("DELTA_METADATA_CHANGED")
              || st.getCondition().equals("DELTA_PROTOCOL_CHANGED"))) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** Whether {@code e} (or a cause) has the Spark error condition {@code condition}. */
  static boolean hasCondition(Throwable e, String condition) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.apache.spark.SparkThrowable st && condition.equals(st.getCondition())) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
