package dev.dptext.job;

import dev.dptext.embedding.EmbeddingFormatException;
import dev.dptext.model.DpTextModel;
import dev.dptext.spark.ModelLoader;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/** Where the model comes from; shared by {@code sanitize} and {@code build-model}. */
final class ModelOptions {
  @Option(names = "--model", paramLabel = "PATH",
      description = "A dptext model artifact (from build-model), a GloVe / word2vec / fastText .vec "
          + "embeddings file (.gz allowed), or 'default' for the embedded GloVe subset. Default: ${DEFAULT-VALUE}.",
      defaultValue = "default")
  String model;

  @Option(names = "--vocab-size", paramLabel = "N",
      description = "Keep only the N most frequent words of an embeddings file (0 = all). Default: ${DEFAULT-VALUE}.",
      defaultValue = "0")
  int vocabSize;

  @Option(names = "--neighbours", paramLabel = "K",
      description = "Neighbours per word in the sampler tables (memory |V|·K). Default: ${DEFAULT-VALUE}.",
      defaultValue = "" + DpTextModel.DEFAULT_NEIGHBOURS)
  int neighbours;

  /** Loads (or finds in the JVM's cache) the model these options name; a bad one is an input error. */
  DpTextModel load(SparkSession spark) {
    try {
      return ModelLoader.load(spark, model, vocabSize, neighbours);
    } catch (IllegalArgumentException | EmbeddingFormatException e) {
      throw new JobException(ExitCode.INPUT, e.getMessage());
    }
  }
}
