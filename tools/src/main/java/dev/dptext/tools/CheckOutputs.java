package dev.dptext.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Checks the outputs of the cluster test (scripts/cluster/test.sh) and of the other scripts that compare
 * runs, on the Spark and Delta jars: {@code java -cp tools/target/dptext-tools-<v>.jar:"$SPARK_HOME/jars/*"
 * dev.dptext.tools.CheckOutputs FORMAT ID_COLUMN EXPECTED_ROWS REFERENCE [OTHER...]}.
 *
 * <p>For every table: its row count equals EXPECTED_ROWS, its ids are unique and non-null (so
 * "row for row" is well defined), and its run summary ({@code _dptext_summary.json}) says rows in =
 * rows out = EXPECTED_ROWS. For every OTHER: the same rows as REFERENCE, compared as multisets of
 * whole rows (every column; {@code exceptAll} both ways) and joined by id (rows whose columns differ),
 * and the same token counts in its summary ({@code -Dcheck.summary=false} skips the summaries). Prints the counts; prints ids, never text. Exit code 0
 * when everything holds, 1 otherwise.
 */
public class CheckOutputs {
  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: CheckOutputs FORMAT ID_COLUMN EXPECTED_ROWS REFERENCE [OTHER...]");
      System.exit(2);
    }
    String format = args[0];
    String id = args[1];
    long expected = Long.parseLong(args[2]);
    Path warehouse = Files.createTempDirectory("check-outputs");
    SparkSession spark = SparkSession.builder().master("local[1]").appName("dptext-check-outputs")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", warehouse.toString())
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
    List<String> failures = new ArrayList<>();
    try {
      String refPath = args[3];
      Dataset<Row> ref = spark.read().format(format).load(refPath).cache();
      JsonNode refSummary = checkTable(ref, refPath, id, expected, failures);
      for (int i = 4; i < args.length; i++) {
        String path = args[i];
        Dataset<Row> other = spark.read().format(format).load(path).cache();
        JsonNode summary = checkTable(other, path, id, expected, failures);
        long onlyRef = ref.exceptAll(other).count();
        long onlyOther = other.exceptAll(ref).count();
        Column differs = functions.lit(false);
        for (String c : ref.columns()) {
          differs = differs.or(functions.not(ref.col(c).eqNullSafe(other.col(c))));
        }
        Dataset<Row> joined = ref.join(other, ref.col(id).equalTo(other.col(id)), "full_outer");
        List<Row> differing = joined.where(differs).select(functions.coalesce(ref.col(id), other.col(id)))
            .limit(10).collectAsList();
        long differingCount = joined.where(differs).count();
        System.out.printf("%s vs %s: rows only in the reference %d, only in the other %d, ids whose row differs %d%n",
            path, refPath, onlyRef, onlyOther, differingCount);
        if (onlyRef != 0 || onlyOther != 0 || differingCount != 0) {
          failures.add(path + " differs from " + refPath + " (first differing ids: " + differing + ")");
        }
        for (String field : new String[] {"tokens", "tokensChanged", "tokensOutOfVocabulary"}) {
          if (refSummary != null && summary != null && !refSummary.path(field).equals(summary.path(field))) {
            failures.add(path + ": summary " + field + " " + summary.path(field) + " ≠ " + refSummary.path(field)
                + " of " + refPath);
          }
        }
      }
    } finally {
      spark.stop();
    }
    if (!failures.isEmpty()) {
      failures.forEach(f -> System.out.println("FAIL " + f));
      System.exit(1);
    }
    System.out.println("OK: all outputs checked");
  }

  /** Counts, id uniqueness and the run summary of one output; returns the summary (or null). */
  static JsonNode checkTable(Dataset<Row> t, String path, String id, long expected, List<String> failures)
      throws java.io.IOException {
    long rows = t.count();
    long ids = t.where(t.col(id).isNotNull()).select(id).distinct().count();
    System.out.printf("%s: %d rows, %d distinct non-null ids (expected %d rows)%n", path, rows, ids, expected);
    if (rows != expected) {
      failures.add(path + ": " + rows + " rows, expected " + expected);
    }
    if (ids != rows) {
      failures.add(path + ": " + ids + " distinct non-null ids for " + rows + " rows");
    }
    Path summaryFile = Path.of(path, "_dptext_summary.json");
    if (!Boolean.parseBoolean(System.getProperty("check.summary", "true"))) {
      // -Dcheck.summary=false: a run killed after its commit wrote no summary, and the re-run that
      // found the commit had nothing to do (scripts/fault/injection.sh); the rows are still checked.
      return null;
    }
    if (!Files.isRegularFile(summaryFile)) {
      failures.add(path + ": no run summary " + summaryFile);
      return null;
    }
    JsonNode s = new ObjectMapper().readTree(summaryFile.toFile());
    System.out.printf("  summary: rowsIn %s, rowsOut %s, tokens %s, tokensChanged %s, tokensOutOfVocabulary %s%n",
        s.path("rowsIn"), s.path("rowsOut"), s.path("tokens"), s.path("tokensChanged"), s.path("tokensOutOfVocabulary"));
    if (s.path("rowsIn").asLong(-1) != expected || s.path("rowsOut").asLong(-1) != expected) {
      failures.add(path + ": summary says rowsIn " + s.path("rowsIn") + ", rowsOut " + s.path("rowsOut")
          + ", expected " + expected);
    }
    if (s.path("tokens").asLong(0) <= 0) {
      failures.add(path + ": summary counts no tokens");
    }
    return s;
  }
}
