package dev.dptext.classic.partitioned;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.errors.DpTextErrors;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Reads a GloVe / .vec embeddings file over Spark partitions into rows (rank, word, vector), for the
 * partitioned build: the same format and checks as {@link EmbeddingReader} (line order is the public
 * frequency rank, an optional {@code count dim} header, blank lines skipped, values checked by
 * {@link EmbeddingReader#values}, duplicate words refused), without the file passing through the driver.
 */
public final class EmbeddingsText {
  private EmbeddingsText() {}

  public static final StructType SCHEMA = new StructType()
      .add("rank", DataTypes.IntegerType, false)
      .add("word", DataTypes.StringType, false)
      .add("vector", DataTypes.createArrayType(DataTypes.FloatType, false), false);

  /** @param maxWords keep the first words only (0 = all) */
  public static Dataset<Row> read(SparkSession spark, String path, int maxWords) {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    JavaRDD<String> lines = sc.textFile(path);
    String first = lines.first();
    boolean header = EmbeddingReader.isHeader(first.strip().split(" "));
    int dim = header ? Integer.parseInt(first.strip().split(" ")[1])
        : first.strip().split(" ").length - 1;
    if (dim <= 0) {
      throw DpTextErrors.error("EMBEDDING_FILE_MALFORMED", "path", path, "line", 1,
          "problem", "no values after the word");
    }
    JavaRDD<Row> rows = lines.zipWithIndex()
        .filter(l -> !(header && l._2() == 0) && !l._1().isBlank())
        .zipWithIndex()
        .filter(l -> maxWords <= 0 || l._2() < maxWords)
        .map(l -> {
          String line = l._1()._1();
          long lineNo = l._1()._2() + 1;
          if (line.indexOf('\uFFFD') >= 0) {
            throw DpTextErrors.error("EMBEDDING_FILE_MALFORMED", "path", path, "line", lineNo,
                "problem", "the file is not valid UTF-8 (or contains U+FFFD)");
          }
          String[] parts = line.strip().split(" ");
          float[] v = EmbeddingReader.values(parts, dim, path, lineNo);
          Float[] boxed = new Float[dim]; // an array: RDD rows are encoded without converting Java lists
          for (int d = 0; d < dim; d++) {
            boxed[d] = v[d];
          }
          return RowFactory.create((int) (long) l._2(), parts[0], boxed);
        });
    Dataset<Row> df = spark.createDataFrame(rows, SCHEMA);
    List<Row> duplicates = df.groupBy("word").count().filter("count > 1").limit(1).collectAsList();
    if (!duplicates.isEmpty()) {
      throw DpTextErrors.error("EMBEDDING_FILE_DUPLICATE_WORD", "path", path, "word", duplicates.get(0).getString(0));
    }
    return df;
  }

}
