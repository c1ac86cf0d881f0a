package dev.dptext.evaluation;

import dev.dptext.errors.DpTextErrors;
import java.util.function.UnaryOperator;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.classification.MultilayerPerceptronClassificationModel;
import org.apache.spark.ml.classification.MultilayerPerceptronClassifier;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.ml.functions;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Membership inference by shadow models (Shokri et al. 2017, as BRR §6 runs it against a classifier
 * trained on sanitized text). The rows, ordered by a hash of (seed, id), are cut into 2 + 2S equal
 * groups: the target model's training rows (members) and held-out rows (non-members), and for each of
 * S shadow models its own training and held-out rows. Every model is the utility evaluation's
 * classifier ({@link DownstreamUtility#fit}) trained on its rows as {@code sanitize} rewrites them
 * (the attacker knows the mechanism and runs it with keys of its own); every model is then queried with
 * the raw text of its training and held-out rows. The attack model, an MLP with two hidden layers of
 * 64 (as in the paper), learns member vs non-member from (the probability the model gives the true
 * label, the label) on the shadow models' answers, and is scored by its ROC AUC on the target's
 * answers: 0.5 is no leak.
 */
public final class MembershipInference {
  private MembershipInference() {}

  /**
   * The attack's AUC against a target trained on {@code sanitizeTarget(members)}, with shadows
   * trained on {@code sanitizeShadow(shadow rows)}.
   *
   * @param data rows with the text, the id and the double {@code label} (0/1)
   */
  public static double attackAuc(Dataset<Row> data, DownstreamUtility.Columns c, int shadows, long seed,
      UnaryOperator<Dataset<Row>> sanitizeTarget, java.util.function.BiFunction<Integer, Dataset<Row>, Dataset<Row>> sanitizeShadow) {
    requireClassic(data.sparkSession());
    if (shadows < 1) {
      throw DpTextErrors.error("COUNT_TOO_SMALL", "option", "--shadows", "value", shadows);
    }
    int groups = 2 + 2 * shadows;
    Column order = org.apache.spark.sql.functions.sha2(org.apache.spark.sql.functions.concat_ws("/",
        org.apache.spark.sql.functions.lit("mia/" + seed), org.apache.spark.sql.functions.col(c.id()).cast("string")), 256);
    Dataset<Row> grouped = data.withColumn("_group", org.apache.spark.sql.functions.ntile(groups)
        .over(org.apache.spark.sql.expressions.Window.orderBy(order)).minus(1)).cache();
    try {
      Dataset<Row> attackTraining = null;
      for (int s = 0; s < shadows; s++) {
        Dataset<Row> in = group(grouped, 2 + 2 * s);
        Dataset<Row> out = group(grouped, 3 + 2 * s);
        Dataset<Row> answers = answers(DownstreamUtility.fit(sanitizeShadow.apply(s, in).cache(), c.text()), in, out);
        attackTraining = attackTraining == null ? answers : attackTraining.union(answers);
      }
      Dataset<Row> members = group(grouped, 0);
      Dataset<Row> target = answers(DownstreamUtility.fit(sanitizeTarget.apply(members).cache(), c.text()), members,
          group(grouped, 1));
      MultilayerPerceptronClassificationModel attack = new MultilayerPerceptronClassifier()
          .setLayers(new int[] {2, 64, 64, 2}).setLabelCol("member").setFeaturesCol("attack").setSeed(seed)
          .setMaxIter(200).fit(attackTraining.cache());
      return new BinaryClassificationEvaluator().setLabelCol("member").setRawPredictionCol("rawPrediction")
          .setMetricName("areaUnderROC").evaluate(attack.transform(target));
    } finally {
      grouped.unpersist();
    }
  }

  /**
   * Fails on a Spark Connect session, before any data is read: the shadow, target and attack models
   * are Spark MLlib estimators, which need a classic session (see {@link DownstreamUtility#requireClassic}).
   */
  public static void requireClassic(org.apache.spark.sql.SparkSession spark) {
    dev.dptext.classic.Classic.requireClassic(spark, "The membership-inference evaluation (Spark MLlib's "
        + "classifiers and attack model)", DownstreamUtility.CONNECT_ALTERNATIVE);
  }

  private static Dataset<Row> group(Dataset<Row> grouped, int g) {
    return grouped.where(org.apache.spark.sql.functions.col("_group").equalTo(g)).drop("_group");
  }

  /** The model's answers on raw members (member = 1) and non-members (0): (P(true label), label). */
  private static Dataset<Row> answers(PipelineModel model, Dataset<Row> members, Dataset<Row> nonMembers) {
    Dataset<Row> queried = model.transform(members.withColumn("member", org.apache.spark.sql.functions.lit(1.0))
        .unionByName(nonMembers.withColumn("member", org.apache.spark.sql.functions.lit(0.0))));
    Column p = functions.vector_to_array(org.apache.spark.sql.functions.col("probability"), "float64");
    Dataset<Row> features = queried.withColumn("_ptrue", org.apache.spark.sql.functions.when(
        org.apache.spark.sql.functions.col("label").equalTo(1.0), p.getItem(1)).otherwise(p.getItem(0)));
    return new VectorAssembler().setInputCols(new String[] {"_ptrue", "label"}).setOutputCol("attack")
        .transform(features).select("attack", "member");
  }
}
