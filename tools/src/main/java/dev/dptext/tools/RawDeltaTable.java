package dev.dptext.tools;

import java.nio.file.Files;
import org.apache.spark.sql.SparkSession;

/**
 * Writes JSON lines as a raw Delta table, for the in-place scenarios of scripts/fault/injection.sh:
 * {@code java -cp tools/target/dptext-tools-<v>.jar:CP dev.dptext.tools.RawDeltaTable INPUT.jsonl TABLE}.
 */
public class RawDeltaTable {
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: RawDeltaTable INPUT.jsonl TABLE (writes the JSON lines as a Delta table)");
      System.exit(2);
    }
    SparkSession spark = SparkSession.builder().master("local[2]").appName("dptext-raw-delta-table")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", Files.createTempDirectory("raw-delta").toString())
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
    spark.read().json(args[0]).write().format("delta").save(args[1]);
    spark.stop();
  }
}
