package dev.dptext.evaluation;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.classic.Classic;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.runtime.ModelLoader;
import dev.dptext.runtime.Storage;
import java.io.IOException;
import org.apache.spark.sql.SparkSession;

/**
 * The model an evaluation runs on: loaded on the driver, and, when it came from a file, where executors
 * can load it themselves. A Spark Connect session has no broadcast, so its tasks rebuild the mechanism
 * from the file ({@link ModelFile}); a model that exists only in memory then travels inside the plan
 * ({@link Shipped.Carried}), which suits small models only.
 *
 * <p>Every path is reached through {@link Storage}, never Hadoop directly: on a Spark Connect client's classpath
 * alone (a Databricks serverless JAR task) there is no Hadoop, and a local model file (a volume's) is read with
 * {@code java.nio}; a classic session reaches every scheme through its Hadoop file system as before.
 */
public final class EvaluationModel {
  private final DpTextModel model;
  private final String source;
  private final int vocabularySize;
  private final int neighbours;
  /** Hashed on first need (Spark Connect only): classic runs never read the file twice. */
  private ModelFile file;

  private EvaluationModel(DpTextModel model, String source, int vocabularySize, int neighbours) {
    if (model == null) { // the factories pass a loaded model
      throw new IllegalStateException("no model given");
    }
    this.model = model;
    this.source = source;
    this.vocabularySize = vocabularySize;
    this.neighbours = neighbours;
  }

  /** A model that exists only in memory. */
  public static EvaluationModel of(DpTextModel model) {
    return new EvaluationModel(model, null, 0, 0);
  }

  /**
   * {@code model}, as {@code ModelLoader.load(spark, source, vocabularySize, neighbours)} returned it:
   * executors of a Spark Connect session load it from {@code source} with the same settings.
   */
  public static EvaluationModel of(DpTextModel model, String source, int vocabularySize, int neighbours) {
    return new EvaluationModel(model, source, vocabularySize, neighbours);
  }

  /**
   * Loads the model as {@code ModelLoader.load} does (cached per JVM), remembering where it came from. On
   * a Spark Connect session it also hashes the file for the executors now, and refuses a partitioned
   * model directory before loading anything.
   */
  public static EvaluationModel load(SparkSession spark, String source, int vocabularySize, int neighbours) {
    boolean connect = !Classic.is(spark);
    if (connect && source != null && ModelLoader.isPartitioned(spark, source)) {
      throw new IllegalArgumentException(partitionedMessage(source));
    }
    EvaluationModel m = of(ModelLoader.load(spark, source, vocabularySize, neighbours), source, vocabularySize,
        neighbours);
    if (connect) {
      m.file(spark);
    }
    return m;
  }

  /**
   * {@code source} with its file system and, for a relative path, the client's working directory: on Spark
   * Connect the server resolves a path against its own working directory, not the user's.
   */
  public static String qualifiedPath(SparkSession spark, String source) {
    if (source.isBlank() || source.equals(EmbeddedDefault.NAME)) {
      return source;
    }
    try {
      return Storage.of(spark, source).qualified(source);
    } catch (IOException e) {
      throw DpTextErrors.error(e, "PATH_NOT_RESOLVABLE", "path", source, "reason", e.getMessage());
    }
  }

  private static String partitionedMessage(String source) {
    return "On Spark Connect, evaluation tasks load the model whole from one file, and " + source + " is a "
        + "partitioned model directory. Evaluate with the embeddings file it was built from or a model artifact "
        + "(build-model without --model-layout partitioned), or run the evaluation on a classic Spark cluster";
  }

  public DpTextModel model() {
    return model;
  }

  /**
   * The file recipe for executors, or null for a model only in memory.
   *
   * @throws IllegalArgumentException for a partitioned model directory, which executors cannot load
   *     whole (and which is too large to travel in a plan)
   */
  synchronized ModelFile file(SparkSession spark) {
    if (source == null) {
      return null;
    }
    if (file == null) {
      if (ModelLoader.isPartitioned(spark, source)) {
        throw new IllegalArgumentException(partitionedMessage(source));
      }
      file = ModelFile.hash(spark, qualifiedPath(spark, source), vocabularySize, neighbours);
    }
    return file;
  }
}
