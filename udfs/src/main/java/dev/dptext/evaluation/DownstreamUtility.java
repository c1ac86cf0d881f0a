package dev.dptext.evaluation;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.spark.DpText;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.HashingTF;
import org.apache.spark.ml.feature.IDF;
import org.apache.spark.ml.feature.Normalizer;
import org.apache.spark.ml.feature.RegexTokenizer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.functions;

/**
 * Downstream utility (BRR §6, SanText §5): how well a text classifier trained on sanitized text does
 * against one trained on the raw text.
 *
 * <ul>
 *   <li><b>Split.</b> Stratified and reproducible: within each label, rows are ordered by a hash of
 *       (seed, id) and the first ⌈f·n_label⌉ are the test set.
 *   <li><b>Sanitization.</b> The training text — and, in the "sanitized test" setting, the test text —
 *       goes through {@link DpText}'s DataFrame API, the same code path users run, with a key per
 *       trial from {@link EvaluationKeys}.
 *   <li><b>Classifier.</b> Spark MLlib: a regex tokenizer (lower case, split on non-word characters),
 *       hashed term frequencies ({@link #features}: 2^18 buckets, fewer for a small vocabulary), IDF,
 *       each document's vector scaled to unit length, and
 *       L2-regularised logistic regression on the features as they are (λ = 1/n for n training rows,
 *       ≤ 50 iterations, threshold 0.5). That is the plain TF-IDF + logistic-regression baseline
 *       (scikit-learn's TfidfVectorizer + LogisticRegression defaults). It used to run with MLlib's
 *       defaults instead: per-feature standardization, which weakens the penalty on rare words (and
 *       sanitized text is full of rare words: the model fit noise), no length normalization (a model
 *       trained on sanitized text saw clean test documents at another scale, a shifted threshold), and a
 *       fixed λ = 0.01. A fast bag-of-words baseline that is sensitive to exactly what the mechanisms
 *       change, the words; the papers used neural models, so compare directions, not values.
 *   <li><b>Scores.</b> Accuracy and the area under the ROC curve on the test set.
 * </ul>
 */
public final class DownstreamUtility {
  private DownstreamUtility() {}

  /** The most buckets of the hashed term frequencies: MLlib's default, what a large corpus gets. */
  public static final int MAX_FEATURES = 1 << 18;

  /** The fewest buckets, whatever the vocabulary. */
  static final int MIN_FEATURES = 1 << 10;

  /** Buckets per distinct training token, below the cap: about 1 token in 64 shares its bucket. */
  static final int BUCKETS_PER_TOKEN = 64;

  /** {@link #features} in words, for reports. */
  public static final String HASHING = "hashed term frequencies (" + BUCKETS_PER_TOKEN
      + " buckets per distinct training token, between 2^" + Integer.numberOfTrailingZeros(MIN_FEATURES) + " and 2^"
      + Integer.numberOfTrailingZeros(MAX_FEATURES) + ")";

  /**
   * The hashed feature dimension for a training set of {@code distinctTokens} distinct tokens: the
   * power of two at or above 64 per token, between 2^10 and 2^18. A corpus of 4,096 or more distinct
   * tokens (any real one) gets 2^18, MLlib's default; a small one gets fewer buckets but fewer
   * collisions than 2^18 buckets give a large one. Why not always 2^18: logistic regression's
   * coefficients and each iteration's gradient are dense vectors of this size, serialized to and from
   * every task, which dominates the fit on a small set (a 160-row set trained twice as fast at 2^12).
   */
  public static int features(long distinctTokens) {
    long wanted = Math.max(MIN_FEATURES, distinctTokens * BUCKETS_PER_TOKEN);
    return (int) Math.min(MAX_FEATURES, Long.highestOneBit(wanted - 1) << 1);
  }

  /** The columns of the evaluated table. */
  public record Columns(String text, String label, String id) implements Serializable {}

  /** The two sides of a split. */
  public record Split(Dataset<Row> train, Dataset<Row> test) {}

  /** Accuracy and ROC AUC of one model on one test set. */
  public record Score(double accuracy, double auc) implements Serializable {}

  /** One cell of a sweep: a mechanism at one ε, one trial, one test setting. */
  public record Result(String mechanism, String spec, double nominalEpsilon, double epsilon, int trial,
      String testText, double accuracy, double auc) implements Serializable {}

  /** Whether the test text is raw ("clean") or sanitized like the training text. */
  public static final String CLEAN = "clean";
  public static final String SANITIZED = "sanitized";

  /** What to run instead on Spark Connect, for the messages of {@link #requireClassic}. */
  static final String CONNECT_ALTERNATIVE = "Run it on a classic Spark session: spark-submit to a cluster "
      + "(YARN, Kubernetes, standalone) or local mode, or on Databricks a classic compute in dedicated "
      + "(single user) access mode. tune, privacy-stats and calibrate (EmpiricalPrivacy, PrivacyStatistics, "
      + "PrivacyRatio) run on Spark Connect.";

  /**
   * Fails on a Spark Connect session, before any data is read: MLlib's Java/Scala estimators (the
   * IDF and logistic regression here) read their training data as RDDs, which a Connect session does
   * not have, and would fail mid-run with an obscure error after sanitizing.
   */
  public static void requireClassic(org.apache.spark.sql.SparkSession spark) {
    dev.dptext.classic.Classic.requireClassic(spark, "The downstream-utility evaluation (Spark MLlib's "
        + "classifiers)", CONNECT_ALTERNATIVE);
  }

  /**
   * A stratified split: within each label, the rows ordered by SHA-256 of (seed, id), the first
   * ⌈testFraction·n_label⌉ in the test set. The label column is cast to a double {@code label}.
   */
  public static Split split(Dataset<Row> data, Columns c, double testFraction, long seed) {
    if (!(testFraction > 0 && testFraction < 1)) {
      throw DpTextErrors.error("TEST_FRACTION_INVALID", "value", testFraction);
    }
    Column order = functions.sha2(functions.concat_ws("/", functions.lit(Long.toString(seed)),
        functions.col(c.id()).cast("string")), 256);
    Dataset<Row> ranked = data
        .withColumn("label", functions.col(c.label()).cast("double"))
        .withColumn("_rank", functions.row_number().over(Window.partitionBy("label").orderBy(order)))
        .withColumn("_count", functions.count(functions.lit(1)).over(Window.partitionBy("label")));
    Column inTest = functions.col("_rank").leq(functions.ceil(functions.col("_count").multiply(testFraction)));
    Dataset<Row> train = ranked.where(functions.not(inTest)).drop("_rank", "_count");
    Dataset<Row> test = ranked.where(inTest).drop("_rank", "_count");
    return new Split(train, test);
  }

  /** Logistic regression's iteration limit. */
  public static final int MAX_ITERATIONS = 50;

  /**
   * The L2 penalty λ for n training rows: 1/n, the weight of scikit-learn's default (C = 1) in MLlib's
   * objective (mean loss + λ/2·‖w‖²), so that the penalty per row does not grow as the training set shrinks.
   */
  public static double regParam(long rows) {
    return 1.0 / Math.max(1, rows);
  }

  /** Fits the classifier on {@code textColumn} and the double {@code label} (classic sessions only). */
  public static PipelineModel fit(Dataset<Row> train, String textColumn) {
    requireClassic(train.sparkSession());
    RegexTokenizer tokens = new RegexTokenizer().setInputCol(textColumn).setOutputCol("_tokens")
        .setPattern("\\W+").setToLowercase(true);
    // One pass for the distinct-token estimate (HyperLogLog, deterministic for the same rows).
    long distinctTokens = tokens.transform(train).select(functions.explode(functions.col("_tokens")).as("_t"))
        .agg(functions.approx_count_distinct("_t")).first().getLong(0);
    HashingTF tf = new HashingTF().setInputCol("_tokens").setOutputCol("_tf")
        .setNumFeatures(features(distinctTokens));
    IDF idf = new IDF().setInputCol("_tf").setOutputCol("_tfidf");
    Normalizer unit = new Normalizer().setInputCol("_tfidf").setOutputCol("features").setP(2);
    long rows = train.count();
    LogisticRegression lr = new LogisticRegression().setRegParam(regParam(rows)).setStandardization(false)
        .setMaxIter(MAX_ITERATIONS);
    return new Pipeline().setStages(new PipelineStage[] {tokens, tf, idf, unit, lr}).fit(train);
  }

  /** Accuracy and ROC AUC of {@code model} on {@code test} (which has the double {@code label}). */
  public static Score score(PipelineModel model, Dataset<Row> test) {
    Dataset<Row> predicted = model.transform(test).cache();
    try {
      double accuracy = new MulticlassClassificationEvaluator().setMetricName("accuracy").evaluate(predicted);
      double auc = new BinaryClassificationEvaluator().setMetricName("areaUnderROC").evaluate(predicted);
      return new Score(accuracy, auc);
    } finally {
      predicted.unpersist();
    }
  }

  /** The raw-text baseline: trained and tested on the text as it is. */
  public static Score baseline(Split split, Columns c) {
    return score(fit(split.train(), c.text()), split.test());
  }

  /**
   * Trains on the training text sanitized with {@code spec} and trial {@code trial}'s key, and scores
   * on the raw and on the sanitized test text.
   *
   * @param options the model and text settings (the mechanism comes from {@code spec})
   * @param model the model already loaded, or null to load the one {@code options} names
   * @return two results: clean and sanitized test text
   */
  public static List<Result> cell(Split split, Columns c, DpTextOptions options, MechanismSpec spec,
      double nominalEpsilon, int trial, long seed, DpTextModel model) {
    DpText.Builder sanitizer = DpText.sanitizer(options).mechanism(spec)
        .key(EvaluationKeys.of("utility", seed, trial)).idColumn(c.id());
    if (model != null) {
      sanitizer.model(model);
    }
    // Cached: the classifier passes over its training data many times; sanitize it once.
    Dataset<Row> train = sanitizer.transform(split.train(), c.text()).cache();
    Dataset<Row> test = sanitizer.transform(split.test(), c.text()).cache();
    try {
      PipelineModel classifier = fit(train, c.text());
      Score clean = score(classifier, split.test());
      Score sanitized = score(classifier, test);
      return List.of(
          new Result(spec.name(), spec.toSpecString(), nominalEpsilon, spec.epsilon(), trial, CLEAN,
              clean.accuracy(), clean.auc()),
          new Result(spec.name(), spec.toSpecString(), nominalEpsilon, spec.epsilon(), trial, SANITIZED,
              sanitized.accuracy(), sanitized.auc()));
    } finally {
      train.unpersist();
      test.unpersist();
    }
  }

  /**
   * Every mechanism at every ε, {@code trials} trials each. {@code matched} gives each spec at each
   * nominal ε (the grid's, Laplace's scale) with its ε already matched by the privacy ratio.
   */
  public static List<Result> sweep(Split split, Columns c, DpTextOptions options, DpTextModel model,
      List<MatchedSpec> matched, int trials, long seed, Consumer<String> progress) {
    List<Result> out = new ArrayList<>();
    long start = System.nanoTime();
    int done = 0;
    for (MatchedSpec m : matched) {
      for (int trial = 0; trial < trials; trial++) {
        out.addAll(cell(split, c, options, m.spec(), m.nominalEpsilon(), trial, seed, model));
      }
      done++;
      double elapsed = (System.nanoTime() - start) / 1e9;
      progress.accept(String.format(java.util.Locale.ROOT, "utility %d/%d: %s (nominal ε=%s) × %d trials, "
          + "%.0f s elapsed, about %.0f s to go", done, matched.size(), m.spec().describe(), m.nominalEpsilon(),
          trials, elapsed, elapsed / done * (matched.size() - done)));
    }
    return out;
  }

  /** A mechanism at a grid point: the nominal ε (Laplace's) and the spec with its matched ε. */
  public record MatchedSpec(double nominalEpsilon, MechanismSpec spec) implements Serializable {}
}
