package dev.dptext.job;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/** The job's SparkSession: Delta enabled; {@code local[*]} when not launched by spark-submit. */
final class JobSession {
  static final String DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension";
  static final String DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog";

  private JobSession() {}

  static SparkSession get() {
    SparkConf conf = new SparkConf();
    SparkSession.Builder b = SparkSession.builder().appName("dptext");
    if (!conf.contains("spark.master")) {
      b.master("local[*]");
    }
    String ext = conf.get("spark.sql.extensions", "");
    if (!ext.contains(DELTA_EXTENSION)) {
      b.config("spark.sql.extensions", ext.isEmpty() ? DELTA_EXTENSION : ext + "," + DELTA_EXTENSION);
    }
    if (!conf.contains("spark.sql.catalog.spark_catalog")) {
      b.config("spark.sql.catalog.spark_catalog", DELTA_CATALOG);
    }
    return b.getOrCreate();
  }
}
