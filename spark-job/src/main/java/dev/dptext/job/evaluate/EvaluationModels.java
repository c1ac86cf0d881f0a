package dev.dptext.job.evaluate;

import dev.dptext.embedding.EmbeddingFormatException;
import dev.dptext.evaluation.DownstreamUtility;
import dev.dptext.evaluation.EvaluationModel;
import dev.dptext.evaluation.MembershipInference;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.MissingClass;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import org.apache.spark.sql.SparkSession;

/**
 * What the evaluation commands share about their session: the model as evaluations ship it to tasks
 * (by path on Spark Connect), and the refusal of the MLlib-based ones on Spark Connect.
 */
public final class EvaluationModels {
  private EvaluationModels() {}

  /**
   * The model the settings name, with its source for Spark Connect executors; a bad one is an input error, one
   * this program's classpath cannot read a configuration error ({@link MissingClass}).
   */
  public static EvaluationModel load(SparkSession spark, DpTextOptions options) {
    try {
      return EvaluationModel.load(spark, options.get(Settings.MODEL), options.get(Settings.VOCAB_SIZE),
          options.get(Settings.NEIGHBOURS));
    } catch (IllegalArgumentException | EmbeddingFormatException e) {
      throw JobException.wrap(ExitCode.INPUT, e);
    } catch (LinkageError e) {
      throw MissingClass.model(options.get(Settings.MODEL), e);
    }
  }

  /** {@code evaluate utility}: a usage error on Spark Connect, before anything is read. */
  public static void requireClassicForUtility(SparkSession spark) {
    try {
      DownstreamUtility.requireClassic(spark);
    } catch (UnsupportedOperationException e) {
      throw JobException.wrap(ExitCode.USAGE, e);
    }
  }

  /** {@code evaluate mia}: a usage error on Spark Connect, before anything is read. */
  public static void requireClassicForMia(SparkSession spark) {
    try {
      MembershipInference.requireClassic(spark);
    } catch (UnsupportedOperationException e) {
      throw JobException.wrap(ExitCode.USAGE, e);
    }
  }
}
