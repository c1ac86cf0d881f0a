import dev.dptext.job.ledger.SourceSnapshot;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputTable;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * What the ledger's release identity costs (docs/ledger.md#what-a-repeat-is), side by side in one JVM:
 * the input's check-and-count pass alone, the same pass summing every accepted row's content (seed bytes
 * and text through dptext's RowContent UDF), and the file digest of the source's snapshot (SHA-256 of
 * every byte on the driver). Rounds alternate, after one warm-up round; medians are printed. Run by
 * scripts/bench/ledger-content.sh.
 *
 *   java -cp <classpath> LedgerContentCost.java <input.jsonl> <rounds>
 */
public class LedgerContentCost {
  public static void main(String[] args) {
    String input = args[0];
    int rounds = Integer.parseInt(args[1]);
    SparkSession spark = SparkSession.builder().master("local[2]").appName("ledger-content-cost")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    InputTable table = InputTable.read(spark, input, DataFormat.JSON, Map.of(),
        "id BIGINT, review STRING, sentiment INT", null, "id", "review");
    double[][] times = new double[3][rounds];
    for (int round = -1; round < rounds; round++) {
      long t0 = System.nanoTime();
      long rows = table.count(false).rows();
      long t1 = System.nanoTime();
      InputTable.Counts withContent = table.count(true);
      long t2 = System.nanoTime();
      SourceSnapshot snapshot = SourceSnapshot.of(spark, input, DataFormat.JSON, Map.of()).read(table.all());
      long t3 = System.nanoTime();
      if (round >= 0) {
        times[0][round] = (t1 - t0) / 1e9;
        times[1][round] = (t2 - t1) / 1e9;
        times[2][round] = (t3 - t2) / 1e9;
      }
      System.out.printf(Locale.ROOT, "round %d: %,d rows; count %.2f s, count with content %.2f s, file digest "
          + "%.2f s (%s)%n", round, rows, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9,
          withContent.content() == null ? "no content" : withContent.content().rows() + " rows summed");
      if (snapshot.version() == null) {
        throw new IllegalStateException("no file digest");
      }
    }
    String[] labels = {"count", "count with content", "file digest"};
    for (int i = 0; i < 3; i++) {
      double[] t = times[i].clone();
      java.util.Arrays.sort(t);
      System.out.printf(Locale.ROOT, "median %s: %.2f s%n", labels[i], t[t.length / 2]);
    }
    spark.stop();
  }
}
