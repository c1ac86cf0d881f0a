package dev.dptext.runtime;

import dev.dptext.classic.Classic;
import dev.dptext.classic.ClassicContext;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * The Hadoop configuration with which the driver program reaches files (model artifacts, key files,
 * output directories to check).
 *
 * <p>On a classic session: the application's own ({@code SparkContext.hadoopConfiguration()}, with its
 * {@code spark.hadoop.*} settings and credentials). On a Spark Connect client there is no
 * {@code SparkContext}: the configuration is the client's own defaults ({@code core-site.xml} on its
 * class path, its credentials), so a path is reached from the client's machine. That holds for local
 * and cloud paths with the client's credentials and Databricks volumes mounted at {@code /Volumes}; a
 * table addressed by name needs no file access at all.
 */
public final class HadoopConf {
  private HadoopConf() {}

  public static Configuration of(SparkSession spark) {
    if (Classic.is(spark)) {
      return ClassicContext.hadoopConfiguration(spark);
    }
    // Not the session's spark.hadoop.* settings: listing a Connect session's conf (getAll) makes the
    // server send every setting, unredacted, a key given at its start-up included.
    return new Configuration();
  }
}
