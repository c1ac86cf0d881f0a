package dev.dptext.job.ledger;

import dev.dptext.job.base.TableName;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.OutputLocation;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The source a run reads, as the ledger accounts it, and the snapshot it reads.
 *
 * <p>A source is its data, never a spelling of it. A Delta table is {@code delta:<table id>}: the same table
 * whatever path, link or catalog name reaches it, and a different one when a table is created anew at the
 * same path; a path inside a Delta table (a partition folder read as Parquet) is that table too, at an
 * unknown snapshot. Every other input (files, a folder at any level, a glob, a non-Delta catalog table) is
 * accounted in one source, {@value Release#FILES}: its rows are told apart by their ids only, so the same
 * row reached through a folder, its own file, a link, a hard link or a copy, before or after an edit, is
 * charged in one place. The price is an over-count when two unrelated sets of files share an id column name
 * and id values in one ledger (docs/ledger.md).
 *
 * <p>The snapshot decides what is a repeat. A Delta table's is the version the run reads, pinned with
 * {@code versionAsOf}, so that what is recorded is what is read. Files' is {@code files:<sha256>} over the
 * SHA-256 of the bytes of every file the read's plan lists ({@link Dataset#inputFiles}): an edit in place,
 * whatever its size and modification time, is another snapshot, and the same bytes under another name are
 * the same. It is taken from the read's own plan after the read is set up ({@link #read}) and checked
 * again after the write ({@link #unchangedSince}): files edited while the run read them make the release's
 * snapshot unknown, so it never repeats.
 *
 * @param source the source's identity
 * @param version the snapshot, null when unknown
 * @param readOptions options to add to the read so that it reads that snapshot
 * @param files the files read, for a file source once {@link #read} (null before, or for a Delta table)
 */
public record SourceSnapshot(String source, String version, Map<String, String> readOptions, List<String> files) {

  /** The source of {@code input} (format {@code format}) read with {@code given} options, before it is read. */
  public static SourceSnapshot of(SparkSession spark, String input, DataFormat format, Map<String, String> given) {
    String table = deltaTableAround(spark, input);
    if (table != null) {
      String id = "delta:" + DeltaTables.detail(spark, table).id();
      boolean wholeTable = format == DataFormat.DELTA && OutputLocation.resolved(spark, input).equals(
          OutputLocation.resolved(spark, table));
      if (!wholeTable || given.containsKey("timestampAsOf")) {
        return new SourceSnapshot(id, null, Map.of(), null);
      }
      if (given.containsKey("versionAsOf")) {
        return new SourceSnapshot(id, "v" + given.get("versionAsOf").strip(), Map.of(), null);
      }
      long v = DeltaTables.latestVersion(spark, input);
      // A catalog table is read by name, which takes no reader options: its version is the one found now.
      return new SourceSnapshot(id, "v" + v, TableName.is(spark, input) ? Map.of()
          : Map.of("versionAsOf", Long.toString(v)), null);
    }
    return new SourceSnapshot(Release.FILES, null, Map.of(), null);
  }

  /**
   * The Delta table {@code input} is or lies in (its resolved location), or null. A catalog table's location
   * is where its files are; a glob is looked at from its fixed part.
   */
  private static String deltaTableAround(SparkSession spark, String input) {
    if (TableName.is(spark, input)) {
      return OutputLocation.inspect(spark, input).kind == OutputLocation.Kind.DELTA_TABLE ? input : null;
    }
    String fixed = input.replaceAll("[*?\\[{].*$", "");
    String at = OutputLocation.resolved(spark, fixed.isEmpty() ? input : fixed);
    dev.dptext.runtime.Storage fs = dev.dptext.runtime.Storage.of(spark, at);
    for (String p = at; p != null; p = fs.parent(p)) {
      // Only a folder with a _delta_log is looked at further: the walk up lists no ancestor's contents.
      try {
        if (fs.exists(fs.child(p, "_delta_log"))
            && OutputLocation.inspect(spark, p).kind == OutputLocation.Kind.DELTA_TABLE) {
          return p;
        }
      } catch (java.io.IOException e) {
        // A level this program may not look at: the walk goes on, a table above it still counts.
      }
    }
    return null;
  }

  /** Whether the source is accounted as files (its snapshot is the digest of what {@link #read} lists). */
  public boolean isFiles() {
    return source.equals(Release.FILES);
  }

  /**
   * The snapshot of what {@code read} reads: for files, the digest of every file its plan lists; a Delta
   * table's is known before the read.
   */
  public SourceSnapshot read(Dataset<Row> read) {
    if (!isFiles()) {
      return this;
    }
    List<String> listed = Arrays.asList(read.inputFiles());
    return new SourceSnapshot(source, FileDigests.snapshot(read.sparkSession(), listed), readOptions, listed);
  }

  /**
   * The snapshot of a stream's micro-batch {@code batch} of {@code source}: the query's id and the batch's,
   * which a replay after a restart shares, and for files the digest of the batch's files, so that a file
   * edited before the replay makes it a new release.
   */
  public static String microBatch(String appId, long batchId, Dataset<Row> batch, String source) {
    String id = appId + ":" + batchId;
    if (!source.equals(Release.FILES)) {
      return id;
    }
    String files = FileDigests.snapshot(batch.sparkSession(), Arrays.asList(batch.inputFiles()));
    return files == null ? null : id + ":" + files;
  }

  /** Whether the files read still hold what they held at {@link #read} (always true for a Delta table). */
  public boolean unchangedSince(SparkSession spark) {
    if (files == null || version == null) {
      return true;
    }
    return version.equals(FileDigests.snapshot(spark, files));
  }
}
