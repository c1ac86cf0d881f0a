package dev.dptext.evaluation;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.io.Serializable;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark Connect side of {@link ConnectEvaluationTest}, in a JVM of its own whose class path puts the
 * Connect client jar first (as {@code spark-submit} does with {@code spark.api.mode=connect}): connects to
 * the server, computes {@link EvaluationFigures} and writes them to a file.
 *
 * <p>Arguments: the server's URL, the model file, the figures file, a path that does not exist.
 */
public final class ConnectEvaluationClient {
  private ConnectEvaluationClient() {}

  public static void main(String[] args) throws Exception {
    long start = System.nanoTime();
    SparkSession spark = org.apache.spark.sql.connect.SparkSession.builder().remote(args[0]).create();
    try {
      LinkedHashMap<String, Serializable> figures = EvaluationFigures.refusals(spark, Path.of(args[3]));
      figures.put("session class", spark.getClass().getName());
      figures.putAll(EvaluationFigures.compute(spark, Path.of(args[1])));
      EvaluationFigures.write(Path.of(args[2]), figures);
    } finally {
      spark.close();
    }
    System.err.printf("Connect client: figures in %.1f s%n", (System.nanoTime() - start) / 1e9);
  }
}
