package dev.dptext.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.DeltaOptions;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.Metadata;
import org.apache.spark.sql.delta.actions.SetTransaction;
import org.apache.spark.sql.delta.commands.DMLUtils;
import org.apache.spark.sql.delta.commands.WriteIntoDelta;
import scala.Function1;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One Delta commit holding a run's rows, its table properties and (for scheduled runs) its
 * transaction id, for {@code errorifexists}, {@code overwrite}, {@code append} and
 * {@code replace-where}.
 *
 * <p>Why not {@code DataFrameWriter}: Delta's writer sets table properties only when it creates the
 * table, so the properties of an existing table needed a second commit ({@code ALTER TABLE … SET
 * TBLPROPERTIES}) and a crash between the two left rows without the properties that state their
 * guarantee. Here the run opens Delta's own transaction, updates the metadata, writes the files with
 * Delta's {@code WriteIntoDelta} (the command the writer itself runs: same files, same metrics, same
 * conflict checks) and commits everything at once. This uses Delta's internal API, pinned by the
 * delta-spark version of the pom; the job's tests exercise every mode through it.
 */
final class DeltaCommit {
  /** Returned when the table already holds this run's transaction: nothing was written. */
  static final long ALREADY_COMMITTED = -1;

  private DeltaCommit() {}

  /** Writes and commits; returns the committed version, or {@link #ALREADY_COMMITTED}. */
  static long write(Dataset<Row> df, TableWriter.Target t, TableWriter.Commit commit, String userMetadata) {
    SparkSession spark = df.sparkSession();
    DeltaLog log = DeltaLog.forTable(spark, t.path());
    SaveMode mode = switch (t.mode()) {
      case APPEND -> SaveMode.Append;
      case OVERWRITE, REPLACE_WHERE -> SaveMode.Overwrite;
      default -> SaveMode.ErrorIfExists; // MERGE reaches here only to create its table
    };
    Map<String, String> options = new LinkedHashMap<>();
    if (t.mode() == WriteMode.REPLACE_WHERE) {
      options.put(DeltaOptions.REPLACE_WHERE_OPTION(), t.where());
    }
    DeltaOptions deltaOptions = new DeltaOptions(CollectionConverters.asScala(options).toMap(
        scala.$less$colon$less$.MODULE$.refl()), spark.sessionState().conf());
    scala.collection.immutable.Seq<String> partitions = CollectionConverters.asScala(commit.partitionColumns()).toSeq();
    Function1<OptimisticTransaction, Long> body = txn -> {
      if (t.txnAppId() != null && txn.txnVersion(t.txnAppId()) >= t.txnVersion()) {
        return ALREADY_COMMITTED; // a concurrent run of the same transaction committed first
      }
      boolean newTable = txn.readVersion() < 0;
      Map<String, String> properties = new LinkedHashMap<>(commit.inherited());
      properties.putAll(commit.audit());
      if (!newTable) {
        Map<String, String> current = CollectionConverters.asJava(txn.metadata().configuration());
        if (!properties.entrySet().stream().allMatch(e -> e.getValue().equals(current.get(e.getKey())))) {
          Map<String, String> merged = new LinkedHashMap<>(current);
          merged.putAll(properties);
          Metadata m = txn.metadata();
          txn.updateMetadata(m.copy(m.id(), m.name(), m.description(), m.format(), m.schemaString(),
              m.partitionColumns(), scalaMap(merged), m.createdTime()), false);
        }
      }
      WriteIntoDelta write = new WriteIntoDelta(log, mode, deltaOptions, partitions,
          newTable ? scalaMap(properties) : scalaMap(Map.of()), df, Option.empty(), Option.empty());
      DMLUtils.TaggedCommitData<Action> data = write.writeAndReturnCommitData(txn, spark, Option.empty(), false);
      scala.collection.immutable.Seq<Action> actions = data.actions();
      if (t.txnAppId() != null) {
        List<Action> all = new java.util.ArrayList<>(CollectionConverters.asJava(actions));
        all.add(new SetTransaction(t.txnAppId(), t.txnVersion(), Option.apply(System.currentTimeMillis())));
        actions = CollectionConverters.asScala(all).toSeq();
      }
      DeltaOperations.Write operation = new DeltaOperations.Write(mode, Option.apply(partitions),
          Option.apply(t.mode() == WriteMode.REPLACE_WHERE ? t.where() : null), Option.apply(userMetadata));
      Option<Object> version = txn.commitIfNeeded(actions, operation, data.stringTags());
      return version.isDefined() ? (Long) version.get() : txn.readVersion();
    };
    return log.withNewTransaction(Option.empty(), Option.apply(commit.readSnapshot()), body);
  }

  private static scala.collection.immutable.Map<String, String> scalaMap(Map<String, String> m) {
    return CollectionConverters.asScala(m).toMap(scala.$less$colon$less$.MODULE$.refl());
  }
}
