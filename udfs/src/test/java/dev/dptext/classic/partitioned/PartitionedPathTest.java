package dev.dptext.classic.partitioned;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.testing.ErrorAssertions;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.SanTextPlus;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.model.PartitionedModel;
import dev.dptext.random.SecretKey;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.spark.DpText;
import dev.dptext.spark.SharedSpark;
import dev.dptext.testing.ErrorAssertions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partitioned path against the broadcast path on a vocabulary small enough to run both: the same
 * model (built over Spark partitions, then loaded whole for the broadcast), key, ids and settings must
 * give byte-identical text for every mechanism that has a partitioned form. The vocabulary holds
 * duplicate vectors in different shards, so nearest-word ties must resolve to the lower rank on both.
 */
@Tag("integration")
class PartitionedPathTest {
  static final String KEY_HEX = "00112233445566778899aabbccddeeff0123456789abcdef0123456789abcdef";
  static final int WORDS = 1500;
  static final int DUPLICATES = 60;
  static final double W = 0.9;

  static SparkSession spark;
  static Embeddings embeddings;
  static PartitionedModel partitioned;
  static String partitionedPath;
  static DpTextModel broadcast;
  static PartitionedModel onDemand;
  static Dataset<Row> input;

  @TempDir static Path dir;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    Embeddings base = EmbeddedDefault.embeddings().topWords(WORDS);
    int m = base.dim();
    String[] words = Arrays.copyOf(base.rawWords(), WORDS + DUPLICATES);
    float[] vectors = Arrays.copyOf(base.rawVectors(), (WORDS + DUPLICATES) * m);
    for (int i = 0; i < DUPLICATES; i++) {
      words[WORDS + i] = "twinword" + i; // the same vector as rank i: ties between ranks i and WORDS + i
      System.arraycopy(base.rawVectors(), i * m, vectors, (WORDS + i) * m, m);
    }
    embeddings = new Embeddings(words, vectors, m);
    int size = embeddings.size();
    List<Row> vectorRows = new ArrayList<>();
    for (int r = 0; r < size; r++) {
      Float[] v = new Float[m];
      for (int d = 0; d < m; d++) {
        v[d] = vectors[r * m + d];
      }
      vectorRows.add(RowFactory.create(r, words[r], Arrays.asList(v)));
    }
    StructType vectorSchema = new StructType()
        .add("rank", DataTypes.IntegerType, false)
        .add("word", DataTypes.StringType, false)
        .add("vector", DataTypes.createArrayType(DataTypes.FloatType, false), false);
    partitionedPath = dir.resolve("model").toString();
    partitioned = PartitionedModelBuilder.build(spark, spark.createDataFrame(vectorRows, vectorSchema),
        partitionedPath, RowLengths.tiered(16),
        v -> List.of(0, SanTextPlus.sensitiveStart(v, W)), 3, Map.of("source", "test"));
    broadcast = partitioned.toBroadcastModel(spark);
    Dataset<Row> vectorFrame = spark.createDataFrame(vectorRows, vectorSchema);
    onDemand = PartitionedModelBuilder.build(spark, vectorFrame, dir.resolve("on-demand").toString(),
        RowLengths.tiered(16), v -> {
          throw new AssertionError("a model with tables on demand asks for no table list");
        }, true, 3, Map.of("source", "test"));

    List<Row> rows = new ArrayList<>();
    String[] texts = {
      "The movie was great, and the music was even better.",
      "I would not recommend this hotel to my family, twinword3 or twinword7.",
      "  Leading spaces,\ttabs and\nnew lines stay where they are.  ",
      "Support never answered my e-mail about the refund Quxzorblat.",
      "",
      null,
      "It is what it is: one of the best films of the year, and the worst of the decade.",
    };
    for (int i = 0; i < 70; i++) {
      rows.add(RowFactory.create("row-" + i, texts[i % texts.length]));
    }
    input = spark.createDataFrame(rows, new StructType()
        .add("id", DataTypes.StringType, false)
        .add("text", DataTypes.StringType));
  }

  @Test
  void modelMatchesItsEmbeddingsAndTablesAreValid() {
    assertEquals(DpTextModel.of(embeddings, "x", 16).hash(), partitioned.hash());
    int size = embeddings.size();
    for (int t : partitioned.tables()) {
      NeighbourTable built = broadcast.neighbours(t);
      NeighbourTable reference = NeighbourSearch.compute(embeddings, t, RowLengths.tiered(16));
      for (int x = 0; x < size; x++) {
        // The bound must hold for every target outside the row (what the sampler's exactness rests on).
        java.util.Set<Integer> row = new java.util.HashSet<>();
        for (int j = 0; j < built.rowLength(x); j++) {
          row.add(built.neighbour(x, j));
        }
        assertEquals(reference.rowLength(x), built.rowLength(x));
        double minOutside = Double.POSITIVE_INFINITY;
        for (int y = t; y < size; y++) {
          if (!row.contains(y)) {
            minOutside = Math.min(minOutside, embeddings.distance(x, y));
          }
        }
        assertTrue(built.outsideBound(x) <= minOutside, "bound of word " + x + " for targets from " + t);
        // Rows are the exact nearest by (distance, rank), as the broadcast build's.
        for (int j = 0; j < built.rowLength(x); j++) {
          assertEquals(reference.neighbour(x, j), built.neighbour(x, j), "word " + x + " neighbour " + j);
        }
      }
    }
  }

  @Test
  void everyMechanismGivesTheBroadcastPathsText() {
    List<MechanismSpec> specs = List.of(
        MechanismSpec.of("santext", Map.of("epsilon", 3.0)),
        MechanismSpec.of("santext+", Map.of("epsilon", 3.0, "w", W, "p", 0.3)),
        MechanismSpec.of("laplace", Map.of("epsilon", 12.0)),
        MechanismSpec.of("mahalanobis", Map.of("epsilon", 12.0, "lambda", 0.5)),
        MechanismSpec.of("vickrey", Map.of("epsilon", 12.0, "t", List.of(0.5))),
        MechanismSpec.of("vickrey-topk", Map.of("epsilon", 12.0, "t", List.of(0.0, 0.5, 1.0))));
    SecretKey key = SecretKey.parse(KEY_HEX, "test");
    for (MechanismSpec spec : specs) {
      List<String> expected = byId(DpText.sanitizer().model(broadcast).mechanism(spec).key(key).idColumn("id")
          .transform(input, "text", "text_dp"));
      // A head of 300 words: the frequent words' rows come from the broadcast, the others from the shards.
      PartitionedSanitizer p = PartitionedSanitizer.of(spark, partitioned, DpTextOptions.defaults().with(spec), key, 3,
          300);
      Dataset<Row> out = p.transform(input, "text", "text_dp", "id");
      List<String> actual = byId(out);
      assertEquals(expected, actual, spec.describe());
      long changed = 0;
      List<String> raw = byIdColumn(input, "text");
      for (int i = 0; i < raw.size(); i++) {
        changed += raw.get(i).equals(actual.get(i)) ? 0 : 1;
      }
      assertTrue(changed > 30, spec.describe() + ": the texts were changed");
      if (spec.definition().name().startsWith("santext")) {
        assertTrue(p.rounds() >= 2, spec.describe() + " ran " + p.rounds() + " rounds");
      }
      assertArrayEquals(input.schema().fieldNames(), Arrays.copyOf(out.schema().fieldNames(), 2));
    }
  }

  /**
   * Tables on demand: the model stores none; the rows a run computes for the words it uses are the
   * stored rows bit for bit (neighbours, distances, bound), so SanText and SanText+ give the broadcast
   * path's text, also when the run spreads the vectors over a different number of shards than the
   * model was built with.
   */
  @Test
  void rowsOnDemandAreTheStoredRowsAndGiveTheSameText() {
    PartitionedModel reopened = PartitionedModel.open(dev.dptext.runtime.HadoopConf.of(spark), onDemand.directory());
    assertTrue(reopened.tablesOnDemand() && reopened.tables().isEmpty() && reopened.hasTable(123));
    assertFalse(Files.exists(Path.of(onDemand.directory(), "neighbours-0")), "no table is stored");
    assertEquals(partitioned.hash(), reopened.hash());

    // Rows for a subset of words (head, middle and tail ranks, not aligned with shards or kernel groups).
    List<Integer> used = new ArrayList<>();
    for (int r = 0; r < embeddings.size(); r += (r < 100 ? 1 : 7)) {
      used.add(r);
    }
    used.add(embeddings.size() - 1);
    org.apache.spark.api.java.JavaRDD<VocabularyShard> targets = Shards.load(spark, reopened.vectorsPath(), null, -1,
        reopened.size(), reopened.dim(), reopened.shards());
    for (int t : partitioned.tables()) {
      Map<Integer, Row> stored = new java.util.HashMap<>();
      spark.read().parquet(partitioned.tablePath(t)).collectAsList().forEach(r -> stored.put(r.getInt(0), r));
      List<Row> computed = OnDemandRows.compute(spark, reopened,
          targets, org.apache.spark.api.java.JavaSparkContext.fromSparkContext(spark.sparkContext())
              .parallelize(used, 3), t).collectAsList();
      assertEquals(used.size(), computed.size());
      for (Row r : computed) {
        Row s = stored.get(r.getInt(0));
        String msg = "rank " + r.getInt(0) + ", targets from " + t;
        assertEquals(s.getList(1), r.getList(1), msg + ": neighbours");
        assertEquals(s.getList(2), r.getList(2), msg + ": distances");
        assertEquals(s.getDouble(3), r.getDouble(3), 0.0, msg + ": bound");
      }
    }
    targets.unpersist(false);

    SecretKey key = SecretKey.parse(KEY_HEX, "test");
    for (MechanismSpec spec : List.of(MechanismSpec.of("santext", Map.of("epsilon", 3.0)),
        MechanismSpec.of("santext+", Map.of("epsilon", 3.0, "w", W, "p", 0.3)))) {
      List<String> expected = byId(DpText.sanitizer().model(broadcast).mechanism(spec).key(key).idColumn("id")
          .transform(input, "text", "text_dp"));
      for (int shards : new int[] {3, 2}) {
        PartitionedSanitizer p = PartitionedSanitizer.of(spark, reopened, DpTextOptions.defaults().with(spec), key,
            shards, 300);
        assertEquals(expected, byId(p.transform(input, "text", "text_dp", "id")),
            spec.describe() + ", tables on demand, " + shards + " shards");
      }
    }
  }

  @Test
  void theRowFunctionRefusesAModelKeptPartitionedAndNamesTheWaysOut() {
    DpText.Builder b = DpText.sanitizer().model(partitionedPath).option("modelLayout", "partitioned")
        .key(SecretKey.parse(KEY_HEX, "test"));
    IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> b.udf(spark));
    ErrorAssertions.assertError(x, "ROW_FUNCTION_PARTITIONED_MODEL", Map.of("function", DpText.SQL_FUNCTION,
        "model", partitionedPath, "layoutKey", "spark.dptext.modelLayout", "layout", "partitioned"));
    assertFalse(x.getMessage().contains(KEY_HEX), "the key stays out of errors");
    IllegalArgumentException brr = assertThrows(IllegalArgumentException.class, () -> PartitionedSanitizer.of(
        spark, partitioned, DpTextOptions.defaults().with(MechanismSpec.of("brr", Map.of("epsilon", 1.0))),
        SecretKey.parse(KEY_HEX, "test"), 3));
    ErrorAssertions.assertError(brr, "MECHANISM_NOT_PARTITIONED", Map.of("mechanism", "brr", "setting",
        "spark.dptext.modelLayout"));
    // No approximate index on shards: refused before anything runs, naming the ways out.
    DpText.Builder approximate = DpText.sanitizer().model(partitionedPath).option("modelLayout", "partitioned")
        .option("mechanism", "laplace").option("nearestSearch", "hnsw").key(SecretKey.parse(KEY_HEX, "test"))
        .idColumn("id");
    IllegalArgumentException hnsw = assertThrows(IllegalArgumentException.class,
        () -> approximate.transform(input, "text", "text_dp"));
    ErrorAssertions.assertError(hnsw, "NEAREST_SEARCH_PARTITIONED", Map.of("search", "hnsw",
        "model", partitionedPath, "layoutKey", "spark.dptext.modelLayout", "layout", "partitioned"));
    // Loaded whole on request: the row function then gives the DataFrame path's text.
    DpText.Builder whole = DpText.sanitizer().model(partitionedPath).option("modelLayout", "broadcast")
        .key(SecretKey.parse(KEY_HEX, "test")).idColumn("id");
    List<String> viaUdf = input.orderBy("id")
        .select(whole.udf(spark).apply(org.apache.spark.sql.functions.col("text"),
            org.apache.spark.sql.functions.col("id")))
        .collectAsList().stream().map(r -> r.isNullAt(0) ? "<null>" : r.getString(0)).collect(Collectors.toList());
    assertEquals(byId(whole.transform(input, "text", "text_dp")), viaUdf);
  }

  private static List<String> byId(Dataset<Row> df) {
    return byIdColumn(df, "text_dp");
  }

  private static List<String> byIdColumn(Dataset<Row> df, String column) {
    return df.orderBy("id").select(column).collectAsList().stream()
        .map(r -> r.isNullAt(0) ? "<null>" : r.getString(0))
        .collect(Collectors.toList());
  }
}
