package dev.dptext.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.spark.DpText;
import dev.dptext.spark.SharedSpark;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The utility evaluation's parts on cases whose answers are known. */
@Tag("integration")
class DownstreamUtilityTest {
  static final DownstreamUtility.Columns COLUMNS = new DownstreamUtility.Columns("text", "label", "id");

  /** 200 rows, 70 % label 1: "good …" texts are 1, "bad …" texts are 0 — separable by one word. */
  static Dataset<Row> toy(SparkSession spark) {
    List<Row> rows = new ArrayList<>();
    String[] filler = {"the film", "this movie", "a story", "the acting", "our evening"};
    for (int i = 0; i < 200; i++) {
      boolean positive = i % 10 < 7;
      rows.add(RowFactory.create((long) i, (positive ? "good " : "bad ") + filler[i % 5] + " " + (i % 13), positive ? 1 : 0));
    }
    StructType schema = new StructType().add("id", DataTypes.LongType).add("text", DataTypes.StringType)
        .add("label", DataTypes.IntegerType);
    return spark.createDataFrame(rows, schema);
  }

  @Test
  void theSplitIsStratifiedReproducibleAndDisjoint() {
    Dataset<Row> data = toy(SharedSpark.get());
    DownstreamUtility.Split a = DownstreamUtility.split(data, COLUMNS, 0.25, 3);
    DownstreamUtility.Split b = DownstreamUtility.split(data, COLUMNS, 0.25, 3);
    DownstreamUtility.Split other = DownstreamUtility.split(data, COLUMNS, 0.25, 4);
    // ⌈0.25·140⌉ = 35 positives and ⌈0.25·60⌉ = 15 negatives.
    assertEquals(35, a.test().where("label = 1").count());
    assertEquals(15, a.test().where("label = 0").count());
    assertEquals(150, a.train().count());
    assertEquals(ids(a.test()), ids(b.test()), "same seed, same split");
    assertNotEquals(ids(a.test()), ids(other.test()), "another seed, another split");
    assertEquals(0, a.train().join(a.test(), "id").count(), "train and test are disjoint");
  }

  @Test
  void theClassifierLearnsASeparableToySet() {
    DownstreamUtility.Split split = DownstreamUtility.split(toy(SharedSpark.get()), COLUMNS, 0.25, 3);
    DownstreamUtility.Score score = DownstreamUtility.baseline(split, COLUMNS);
    assertEquals(1.0, score.accuracy(), 1e-9);
    assertEquals(1.0, score.auc(), 1e-9);
  }

  @Test
  void theHashedDimensionIs64BucketsPerTokenBetween2To10And2To18() {
    assertEquals(1 << 10, DownstreamUtility.features(0));
    assertEquals(1 << 10, DownstreamUtility.features(16));
    assertEquals(1 << 11, DownstreamUtility.features(17));
    assertEquals(1 << 12, DownstreamUtility.features(64));
    assertEquals(1 << 17, DownstreamUtility.features(2048));
    assertEquals(1 << 18, DownstreamUtility.features(2049));
    // Any real corpus (4,096 distinct tokens or more) gets MLlib's default 2^18, as before.
    assertEquals(1 << 18, DownstreamUtility.features(4096));
    assertEquals(1 << 18, DownstreamUtility.features(341_000));
  }

  @Test
  void theConfidenceIntervalIsStudentsT() {
    // Values 1..5: mean 3, s = √2.5, t_{0.975,4} = 2.776445; half-width 2.776445·√2.5/√5 = 1.963243.
    ConfidenceInterval ci = ConfidenceInterval.of(1, 2, 3, 4, 5);
    assertEquals(3, ci.mean(), 1e-12);
    assertEquals(1.963243, ci.halfWidth(), 1e-6);
    assertEquals(5, ci.trials());
    assertTrue(Double.isNaN(ConfidenceInterval.of(0.7).halfWidth()), "one trial has no interval");
  }

  @Test
  void aCellTrainsOnTextThatWentThroughTheSanitizer() {
    SparkSession spark = SharedSpark.get();
    DownstreamUtility.Split split = DownstreamUtility.split(toy(spark), COLUMNS, 0.25, 3);
    DpTextModel model = DpTextModel.of(EmbeddedDefault.embeddings().topWords(2000), "top2000", 16);
    MechanismSpec spec = MechanismSpec.parse("santext:epsilon=0.5");
    List<DownstreamUtility.Result> results = DownstreamUtility.cell(split, COLUMNS,
        DpTextOptions.defaults(), spec, 0.5, 0, 9, model);
    assertEquals(List.of(DownstreamUtility.CLEAN, DownstreamUtility.SANITIZED),
        results.stream().map(DownstreamUtility.Result::testText).toList());
    // The training text the cell used is the DataFrame API's output for the trial's evaluation key.
    List<String> sanitized = texts(DpText.sanitizer().model(model).mechanism(spec)
        .key(EvaluationKeys.of("utility", 9, 0)).idColumn("id").transform(split.train(), "text"));
    assertNotEquals(texts(split.train()), sanitized, "ε = 0.5 rewrites the training text");
    // At ε = 0.5 "good" and "bad" are rewritten almost always: the separable signal is gone.
    assertTrue(results.get(0).accuracy() < 0.95, results.toString());
  }

  private static List<Long> ids(Dataset<Row> df) {
    return df.orderBy("id").select("id").collectAsList().stream().map(r -> r.getLong(0)).collect(Collectors.toList());
  }

  private static List<String> texts(Dataset<Row> df) {
    return df.orderBy("id").select("text").collectAsList().stream().map(r -> r.getString(0)).collect(Collectors.toList());
  }

  /**
   * The classifier is the plain TF-IDF + logistic-regression baseline: documents at unit length (a
   * document and the same document twice score alike, so a model trained on sanitized text does not see
   * clean test text at another scale), no per-feature standardization, λ = 1/n.
   */
  @Test
  void theClassifierIsThePlainTfIdfBaseline() {
    SparkSession spark = SharedSpark.get();
    Dataset<Row> data = toy(spark).withColumn("label", org.apache.spark.sql.functions.col("label").cast("double"));
    org.apache.spark.ml.PipelineModel model = DownstreamUtility.fit(data, "text");
    org.apache.spark.ml.classification.LogisticRegressionModel lr =
        (org.apache.spark.ml.classification.LogisticRegressionModel) model.stages()[model.stages().length - 1];
    assertEquals(1.0 / data.count(), lr.getRegParam(), 1e-15);
    assertTrue(!lr.getStandardization(), "no per-feature standardization");
    // A small vocabulary gets 64 buckets per distinct token (counted here with the tokenizer's own rule).
    long distinct = data.select("text").collectAsList().stream()
        .flatMap(r -> java.util.Arrays.stream(r.getString(0).toLowerCase(java.util.Locale.ROOT).split("\\W+")))
        .filter(t -> !t.isEmpty()).distinct().count();
    assertTrue(distinct > 16 && distinct <= 32, distinct + " distinct tokens");
    assertEquals(1 << 11, ((org.apache.spark.ml.feature.HashingTF) model.stages()[1]).getNumFeatures());
    Dataset<Row> doc = spark.sql("SELECT 1 AS id, 'good film, good acting' AS text, 1.0 AS label "
        + "UNION ALL SELECT 2, 'good film, good acting good film, good acting', 1.0");
    List<Row> p = model.transform(doc).orderBy("id").select("probability").collectAsList();
    double once = ((org.apache.spark.ml.linalg.Vector) p.get(0).get(0)).apply(1);
    double twice = ((org.apache.spark.ml.linalg.Vector) p.get(1).get(0)).apply(1);
    assertEquals(once, twice, 1e-9, "the score does not depend on the document's length");
  }
}
