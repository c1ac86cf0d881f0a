package dev.dptext.bench;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plain Spark job that dptext's fixed cost is measured against ({@code scripts/bench/fixed-cost.sh}): reads JSON (schema inferred, as {@code spark.read().json} does)
 * and writes it unchanged as Parquet, in a SparkSession built the way dptext's job builds its own
 * ({@code local[*]} unless a master is given), and exits through {@code System.exit} as dptext's job
 * does. Its DEBUG lines mark the same phases as dptext's, for the benchmark's breakdown run.
 *
 * <p>Usage: {@code IdentityJob <input.jsonl> <output-dir> [parquet|delta [TXN_VERSION]]}: Delta appends (with
 * {@code txnAppId}/{@code txnVersion} when a version is given), in a session with Delta's extension and its
 * state rebuilt in one partition per local core, as dptext's job builds its own ({@code scripts/bench/small-runs-cold.sh}).
 */
public final class IdentityJob {
  private static final Logger LOG = LoggerFactory.getLogger(IdentityJob.class);

  private IdentityJob() {}

  public static void main(String[] args) {
    if (args.length < 2 || args.length > 4) {
      System.err.println("usage: IdentityJob <input.jsonl> <output-dir> [parquet|delta [TXN_VERSION]]");
      System.exit(2);
    }
    boolean delta = args.length > 2 && args[2].equals("delta");
    SparkSession.Builder b = SparkSession.builder().appName("identity");
    if (!new SparkConf().contains("spark.master")) {
      b.master("local[*]");
    }
    if (delta) {
      b.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
          .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
          .config("spark.databricks.delta.snapshotPartitions", String.valueOf(Runtime.getRuntime().availableProcessors()));
    }
    SparkSession spark = b.getOrCreate();
    LOG.debug("phase: session ready");
    Dataset<Row> in = spark.read().json(args[0]);
    LOG.debug("phase: input schema read");
    if (delta) {
      org.apache.spark.sql.DataFrameWriter<Row> w = in.write().format("delta").mode("append");
      if (args.length > 3) {
        w = w.option("txnAppId", "identity").option("txnVersion", Long.parseLong(args[3]));
      }
      w.save(args[1]);
    } else if (args.length > 2) {
      in.write().mode("append").parquet(args[1]);
    } else {
      in.write().parquet(args[1]);
    }
    LOG.debug("phase: written");
    System.exit(0);
  }
}
