package dev.dptext.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.spark.SharedSpark;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The shadow-model attack on the two cases whose answer is known. */
@Tag("integration")
class MembershipInferenceTest {
  static final DownstreamUtility.Columns COLUMNS = new DownstreamUtility.Columns("text", "label", "id");

  /** 400 rows with random labels and words of their own: a model can only memorise them. */
  static Dataset<Row> memorisable() {
    SplittableRandom r = new SplittableRandom(5);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      rows.add(RowFactory.create((long) i, "w" + i + "a w" + i + "b w" + i + "c", (double) r.nextInt(2)));
    }
    return SharedSpark.get().createDataFrame(rows, new StructType().add("id", DataTypes.LongType)
        .add("text", DataTypes.StringType).add("label", DataTypes.DoubleType));
  }

  @Test
  void aModelThatMemorisesItsRowsLeaksMembershipAndTheAttackIsReproducible() {
    double auc = MembershipInference.attackAuc(memorisable(), COLUMNS, 1, 3, d -> d, (s, d) -> d);
    // Well above chance (0.5; the other test is the reference). The bar was 0.8 with MLlib's default
    // classifier; the utility baseline (unit-length documents, λ = 1/n, no standardization)
    // memorises less: 0.76 at this seed.
    assertTrue(auc > 0.7, "attack AUC " + auc);
    assertEquals(auc, MembershipInference.attackAuc(memorisable(), COLUMNS, 1, 3, d -> d, (s, d) -> d), 1e-12);
  }

  @Test
  void trainingOnTextThatKeepsNothingOfTheRowLeaksNothing() {
    // Every training text replaced by the same words: the model cannot tell members from others.
    double auc = MembershipInference.attackAuc(memorisable(), COLUMNS, 1, 3,
        d -> d.withColumn("text", org.apache.spark.sql.functions.lit("same words")),
        (s, d) -> d.withColumn("text", org.apache.spark.sql.functions.lit("same words")));
    assertEquals(0.5, auc, 0.1, "attack AUC " + auc);
  }
}
