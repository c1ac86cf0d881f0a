package dev.dptext.tools;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Checks that no raw text is readable in a Delta table, run on the job's classpath
 * (scripts/fault/injection.sh): {@code java -cp tools/target/dptext-tools-<v>.jar:CP dev.dptext.tools.NoRawText
 * CANARY TABLE...}. CANARY is a word every raw
 * row holds and no mechanism emits. For each TABLE: every version that time travel can still read,
 * every Parquet file under the directory (data files, checkpoints) and every other file (commit JSON,
 * checksums) is searched. Prints where the canary was found (paths and versions, never text); exit 0
 * when nowhere, 1 otherwise.
 */
public class NoRawText {
  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: NoRawText CANARY TABLE... (Delta tables searched for the canary word)");
      System.exit(2);
    }
    String canary = args[0];
    SparkSession spark = SparkSession.builder().master("local[1]").appName("dptext-no-raw-text")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", Files.createTempDirectory("no-raw-text").toString())
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
    List<String> found = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      String table = args[i];
      List<Row> history = spark.sql("DESCRIBE HISTORY delta.`" + Path.of(table).toAbsolutePath() + "`")
          .select("version").collectAsList();
      for (Row h : history) {
        long v = h.getLong(0);
        try {
          long hits = spark.read().format("delta").option("versionAsOf", v).load(table)
              .filter(functions.to_json(functions.struct("*")).contains(canary)).count();
          if (hits > 0) {
            found.add(table + " version " + v + " (" + hits + " rows)");
          }
        } catch (Exception e) {
          // A version whose files are gone cannot be read: nothing readable there.
        }
      }
      try (Stream<Path> walk = Files.walk(Path.of(table))) {
        for (Path f : walk.filter(Files::isRegularFile).collect(Collectors.toList())) {
          boolean hit;
          if (f.toString().endsWith(".parquet")) {
            try {
              hit = spark.read().parquet(f.toString()).filter(functions.to_json(functions.struct("*"))
                  .contains(canary)).count() > 0;
            } catch (Exception e) {
              // A file cut short by the kill (an uncommitted write's orphan): not readable as Parquet by
              // anyone; its bytes are searched instead.
              System.out.println("NoRawText: unreadable Parquet file (cut short), searched as bytes: " + f);
              hit = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(canary);
            }
          } else {
            hit = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(canary);
          }
          if (hit) {
            found.add(f.toString());
          }
        }
      }
      System.out.println("NoRawText: " + table + ": " + history.size() + " version(s) in the history searched");
    }
    spark.stop();
    found.forEach(f -> System.out.println("NoRawText: RAW TEXT FOUND in " + f));
    System.exit(found.isEmpty() ? 0 : 1);
  }
}
