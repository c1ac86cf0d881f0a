import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The SHA-256 of each table named on the command line, as {@code scripts/check/output-hashes.sh} compares
 * them: every row as JSON, ordered by the row's JSON, so that neither the files' order nor the table's
 * partitioning changes the hash. Each argument is {@code NAME=FORMAT:PATH}; a table that is absent hashes as
 * "absent".
 *
 * <p>Run with the job's Spark classpath (Delta included): {@code java -cp … scripts/check/TableHash.java …}.
 */
public final class TableHash {
  public static void main(String[] args) throws Exception {
    SparkSession spark = SparkSession.builder().master("local[2]").appName("table-hash")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
    for (String arg : args) {
      String name = arg.substring(0, arg.indexOf('='));
      String format = arg.substring(arg.indexOf('=') + 1, arg.indexOf(':'));
      String path = arg.substring(arg.indexOf(':') + 1);
      if (!new java.io.File(path).exists()) {
        System.out.printf("%-28s absent%n", name);
        continue;
      }
      Dataset<Row> table = spark.read().format(format).load(path);
      List<String> rows = table.select(functions.to_json(functions.struct(functions.col("*"))).as("j"))
          .orderBy("j").as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String r : rows) {
        sha.update(r.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      }
      System.out.printf("%-28s %6d rows  %s%n", name, rows.size(), HexFormat.of().formatHex(sha.digest()));
    }
    spark.stop();
  }
}
