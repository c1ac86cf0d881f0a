package dev.dptext.job.ledger;

import dev.dptext.job.TableName;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.OutputLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.SparkSession;

/**
 * The source a run reads, as the ledger names it, and the snapshot it reads.
 *
 * <p>A Delta table is named by its table id ({@code delta:<id>}): the same table whatever path, link or
 * catalog name reaches it, and a different one when a table is created anew at the same path. Its
 * snapshot is the version the run reads, pinned with {@code versionAsOf} so that what is recorded is
 * what is read. Files are named by their resolved location (links followed) and their snapshot is a
 * SHA-256 of every file's path, size and modification time; when the files cannot be listed from here the
 * snapshot is unknown (null) and the release never counts as a repeat.
 *
 * @param source the source's identity
 * @param version the snapshot, null when unknown
 * @param readOptions options to add to the read so that it reads that snapshot
 */
public record SourceSnapshot(String source, String version, Map<String, String> readOptions) {

  /** The snapshot of {@code input} (format {@code format}) read with {@code given} options. */
  public static SourceSnapshot of(SparkSession spark, String input, DataFormat format, Map<String, String> given) {
    OutputLocation at = OutputLocation.inspect(spark, input);
    if (at.kind == OutputLocation.Kind.DELTA_TABLE) {
      String id = "delta:" + DeltaTables.detail(spark, input).id();
      if (given.containsKey("timestampAsOf")) {
        return new SourceSnapshot(id, null, Map.of());
      }
      if (given.containsKey("versionAsOf")) {
        return new SourceSnapshot(id, "v" + given.get("versionAsOf").strip(), Map.of());
      }
      long v = DeltaTables.latestVersion(spark, input);
      // A catalog table is read by name, which takes no reader options: its version is the one found now.
      return new SourceSnapshot(id, "v" + v, TableName.is(spark, input) ? Map.of()
          : Map.of("versionAsOf", Long.toString(v)));
    }
    if (TableName.is(spark, input)) {
      return new SourceSnapshot(OutputLocation.resolved(spark, input), null, Map.of());
    }
    List<String> locations = OutputLocation.resolvedInputs(spark, input);
    String source = locations.size() == 1 ? locations.get(0) : OutputLocation.qualified(spark, input);
    return new SourceSnapshot(source, files(spark, locations), Map.of());
  }

  /** {@code files:<sha256>} of every file under {@code locations}, or null when they cannot be listed. */
  private static String files(SparkSession spark, List<String> locations) {
    try {
      List<String> entries = new ArrayList<>();
      for (String location : locations) {
        Path p = new Path(location);
        FileSystem fs = p.getFileSystem(dev.dptext.runtime.HadoopConf.of(spark));
        FileStatus top = fs.getFileStatus(p);
        if (top.isFile()) {
          entries.add(top.getPath() + "|" + top.getLen() + "|" + top.getModificationTime());
          continue;
        }
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(p, true);
        while (it.hasNext()) {
          LocatedFileStatus f = it.next();
          entries.add(f.getPath() + "|" + f.getLen() + "|" + f.getModificationTime());
        }
      }
      entries.sort(null);
      return "files:" + Release.sha256(String.join("\n", entries));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
