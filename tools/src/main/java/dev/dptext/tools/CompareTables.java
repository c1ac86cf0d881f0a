package dev.dptext.tools;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Compares two neighbour tables of partitioned models (Parquet: rank, neighbours, distances, bound)
 * row by row: the same ranks, each once, and per rank the same neighbours, distances and bound, as
 * doubles compared exactly (Spark's equality on arrays and doubles; no tolerance). Prints the counts
 * and up to five differing ranks; exits 1 on any difference.
 *   java -cp tools/target/dptext-tools-<v>.jar:<job classpath> dev.dptext.tools.CompareTables <table A> <table B>
 * (scripts/bench/partitioned-build.sh runs it).
 */
public class CompareTables {
  public static void main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: CompareTables TABLE_A TABLE_B (two Parquet neighbour tables of partitioned models)");
      System.exit(2);
    }
    SparkSession spark = SparkSession.builder().master("local[2]").appName("compare-tables")
        .config("spark.ui.enabled", "false").getOrCreate();
    Dataset<Row> a = spark.read().parquet(args[0]).select("rank", "neighbours", "distances", "bound");
    Dataset<Row> b = spark.read().parquet(args[1]).select("rank", "neighbours", "distances", "bound");
    long countA = a.count();
    long countB = b.count();
    long ranksA = a.select("rank").distinct().count();
    long ranksB = b.select("rank").distinct().count();
    Dataset<Row> onlyA = a.exceptAll(b);
    Dataset<Row> onlyB = b.exceptAll(a);
    long diffA = onlyA.count();
    long diffB = onlyB.count();
    System.out.printf("%s: %d rows (%d ranks) vs %d rows (%d ranks); rows only in A %d, only in B %d: %s%n",
        args[1].replaceAll(".*/", ""), countA, ranksA, countB, ranksB, diffA, diffB,
        diffA == 0 && diffB == 0 && countA == ranksA && countB == ranksB ? "IDENTICAL" : "DIFFERENT");
    List<Row> sample = onlyA.select("rank").limit(5).collectAsList();
    if (!sample.isEmpty()) {
      System.out.println("first differing ranks: " + sample);
    }
    spark.stop();
    System.exit(diffA == 0 && diffB == 0 && countA == ranksA && countB == ranksB ? 0 : 1);
  }
}
