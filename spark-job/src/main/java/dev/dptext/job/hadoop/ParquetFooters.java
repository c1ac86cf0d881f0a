package dev.dptext.job.hadoop;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/** The row counts in the footers of a directory's Parquet files, read with Hadoop's Parquet reader. */
public final class ParquetFooters {
  private ParquetFooters() {}

  /**
   * The sum of the footers' row counts of the data files directly in {@code path} (names starting with
   * {@code _} or {@code .} are not data), or empty when there are more than {@code limit}, a subdirectory, a
   * file being copied, or a footer that cannot be read.
   */
  public static OptionalLong rows(SparkSession spark, String path, int limit) {
    Configuration conf = dev.dptext.runtime.HadoopConf.of(spark);
    try {
      Path dir = new Path(path);
      List<FileStatus> files = new ArrayList<>();
      for (FileStatus f : dir.getFileSystem(conf).listStatus(dir)) {
        String name = f.getPath().getName();
        if (name.startsWith("_") || name.startsWith(".")) {
          continue;
        }
        if (f.isDirectory() || name.endsWith("._COPYING_") || files.size() == limit) {
          return OptionalLong.empty();
        }
        files.add(f);
      }
      long rows = 0;
      for (FileStatus f : files) {
        try (org.apache.parquet.hadoop.ParquetFileReader r = org.apache.parquet.hadoop.ParquetFileReader.open(
            org.apache.parquet.hadoop.util.HadoopInputFile.fromStatus(f, conf))) {
          rows += r.getRecordCount();
        }
      }
      return OptionalLong.of(rows);
    } catch (java.io.IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
