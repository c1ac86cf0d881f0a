package dev.dptext.runtime;

import dev.dptext.mechanism.SanTextPlus;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.model.ModelArtifact;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Writes the default model ({@code --model default}: the embedded GloVe subset) as a model file, with what
 * {@code build-model} stores by default: the neighbour tables for SanText (target start 0) and for SanText+
 * at its default w, and the covariance. The Python package ships it ({@code dptext/models/default.dptext-model},
 * built by {@code python/pom.xml}), so that its engine, which has no JVM, has the model {@code default} names.
 *
 * <pre>
 *   java -cp dptext-udfs.jar:blas.jar:lapack.jar:arpack_combined_all.jar dev.dptext.runtime.DefaultModelFile \
 *       OUTPUT [--unless-newer-than FILE]
 * </pre>
 *
 * With {@code --unless-newer-than}, an OUTPUT modified after FILE (the udfs jar it would be built from) is
 * kept as it is: the build runs this on every Maven run, and a build takes 10–15 s. The file is written
 * next to OUTPUT and moved over it, so an interrupted build never leaves a partial file that looks new.
 * Needs only the udfs jar and LAPACK (the covariance's eigendecomposition), no Spark.
 */
public final class DefaultModelFile {
  private DefaultModelFile() {}

  /** The default model with the tables and covariance {@code build-model} stores by default. */
  public static DpTextModel model() {
    DpTextModel model = withTables(EmbeddedDefault.model());
    model.covariance();
    return model;
  }

  /**
   * {@code model}, with the neighbour tables {@code build-model} stores by default computed: SanText's (target
   * start 0) and SanText+'s at its default w. Also what the machine's cache of the default model holds
   * ({@link DefaultModelCache}), which leaves out the covariance.
   */
  static DpTextModel withTables(DpTextModel model) {
    model.neighbours(0);
    model.neighbours(SanTextPlus.sensitiveStart(model.embeddings().size(), SanTextPlus.W.defaultValue().orElseThrow()));
    return model;
  }

  public static void main(String[] args) throws IOException {
    Path output = null;
    Path reference = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--unless-newer-than") && i + 1 < args.length) {
        reference = Path.of(args[++i]);
      } else if (!args[i].startsWith("--") && output == null) {
        output = Path.of(args[i]);
      } else {
        output = null;
        break;
      }
    }
    if (output == null) {
      System.err.println("usage: DefaultModelFile OUTPUT [--unless-newer-than FILE]");
      System.exit(2);
    }
    if (reference != null && Files.isRegularFile(output)
        && Files.getLastModifiedTime(output).compareTo(Files.getLastModifiedTime(reference)) > 0) {
      System.out.println("dptext default model " + output + " is newer than " + reference.getFileName()
          + ": kept");
      return;
    }
    long t0 = System.nanoTime();
    DpTextModel model = model();
    Files.createDirectories(output.toAbsolutePath().getParent());
    Path partial = output.resolveSibling(output.getFileName() + ".partial");
    try {
      try (OutputStream out = Files.newOutputStream(partial)) {
        ModelArtifact.write(model, out);
      }
      Files.move(partial, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(partial);
    }
    System.out.printf(Locale.ROOT, "dptext default model written to %s: %,d words × %d dims, tables %s, "
            + "%,d bytes, %.1f s%n", output, model.embeddings().size(), model.embeddings().dim(),
        model.tables().keySet(), Files.size(output), (System.nanoTime() - t0) / 1e9);
  }
}
