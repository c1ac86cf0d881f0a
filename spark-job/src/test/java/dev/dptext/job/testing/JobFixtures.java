package dev.dptext.job.testing;

import dev.dptext.embedding.EmbeddingWriter;
import dev.dptext.job.DpTextJob;
import dev.dptext.model.EmbeddedDefault;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Fixtures the job tests share: a key file, a small GloVe file cut from the embedded default, the sample
 * tickets, the canary a raw text carries, and the job run in this JVM with its stdout and stderr captured.
 */
public final class JobFixtures {
  private JobFixtures() {}

  /** The repository's sample tickets (16 rows, JSON lines), relative to the module's directory. */
  public static final String SAMPLE = "../data/sample/support-tickets.jsonl";

  /** A word no model knows and no mechanism emits: if it is readable anywhere, raw text leaked. */
  public static final String CANARY = "zqxcanaryraw";

  /** A key file holding {@code hex} (test keys only; real keys come from a secret store). */
  public static Path keyFile(Path dir, String hex) throws IOException {
    Path key = dir.resolve("key");
    Files.writeString(key, hex + "\n");
    return key;
  }

  /** A GloVe text file of the embedded default's {@code words} most frequent words. */
  public static Path gloveFile(Path dir, int words) {
    Path file = dir.resolve("glove-" + words + ".txt");
    EmbeddingWriter.writeGlove(EmbeddedDefault.embeddings().topWords(words), file);
    return file;
  }

  /** What a job run printed: its exit code, stdout and stderr. */
  public record Run(int exitCode, String out, String err) {}

  /** What {@link #capture} saw on stdout and stderr. */
  public record Output(String out, String err) {}

  /** Code run with stdout and stderr captured; it may throw. */
  public interface Body {
    void run() throws Exception;
  }

  /**
   * Runs {@code body} with {@code System.out} and {@code System.err} captured (restored after it, also when
   * it throws, which is rethrown as it is: an unchecked exception or error unchanged, a checked one
   * wrapped in a RuntimeException). Holds {@link InJvmSpark}: the capture swaps the JVM's {@code System.out}.
   */
  public static Output capture(Body body) {
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      return captured(body);
    }
  }

  private static Output captured(Body body) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new RuntimeException(e);
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    return new Output(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs the job ({@link DpTextJob#execute(String...)}) in its own session with its output captured. */
  public static Run run(String... args) {
    return run(null, args);
  }

  /** Runs the job in {@code spark} (null: the job's own session) with its stdout and stderr captured. */
  public static Run run(SparkSession spark, String... args) {
    int[] code = new int[1];
    Output o = capture(() -> code[0] = spark == null ? DpTextJob.execute(args) : DpTextJob.execute(spark, args));
    return new Run(code[0], o.out(), o.err());
  }

  /**
   * The arguments of {@code sanitize} from {@code input} to {@code output} keyed by {@code keyFile} and the
   * id column {@code id}, over {@code embeddings} (K = 32), without progress lines; then {@code extra}.
   */
  public static String[] sanitizeArgs(String input, String output, Path keyFile, Path embeddings, String... extra) {
    List<String> a = new ArrayList<>(List.of("sanitize", "--input", input, "--output", output, "--id-column", "id",
        "--model", embeddings.toString(), "--neighbours", "32", "--key-file", keyFile.toString(),
        "--progress-interval", "0"));
    a.addAll(List.of(extra));
    return a.toArray(new String[0]);
  }

  /** Runs {@code sanitize} ({@link #sanitizeArgs}) with its output captured. */
  public static Run sanitize(Path input, String output, Path keyFile, Path embeddings, String... extra) {
    return run(sanitizeArgs(input.toString(), output, keyFile, embeddings, extra));
  }

  /** Every place under {@code dir} where the {@link #CANARY} is readable: Parquet rows and other files. */
  public static List<String> canaryFound(Path dir) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        String name = f.getFileName().toString();
        if (name.endsWith(".parquet")) {
          Dataset<Row> rows = SharedSpark.get().read().parquet(f.toString());
          if (rows.filter(org.apache.spark.sql.functions.to_json(org.apache.spark.sql.functions.struct("*"))
              .contains(CANARY)).count() > 0) {
            found.add(f.toString());
          }
        } else if (new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(CANARY)) {
          found.add(f.toString());
        }
      }
    }
    return found;
  }
}
