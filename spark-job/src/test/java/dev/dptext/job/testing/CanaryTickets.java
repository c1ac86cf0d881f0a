package dev.dptext.job.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Twenty support tickets whose texts lead with the {@link JobFixtures#CANARY}, a key and a model, in a
 * test class's directory: what the write-path and in-place tests sanitize. The canary leads each text,
 * so it is the smallest value, which Delta's file statistics keep.
 *
 * @param dir the directory (a test class's {@code @TempDir})
 * @param keyFile the RNG key
 * @param embeddings a GloVe file of 3,000 words
 * @param tickets the tickets as JSON lines
 */
public record CanaryTickets(Path dir, Path keyFile, Path embeddings, Path tickets) {
  /** Writes the fixture into {@code dir}. */
  public static CanaryTickets in(Path dir) throws IOException {
    SharedSpark.get();
    Path keyFile = JobFixtures.keyFile(dir, "2233445566778899aabbccddeeff00112233445566778899aabbccddeeff0011");
    Path embeddings = JobFixtures.gloveFile(dir, 3000);
    Path tickets = dir.resolve("tickets.jsonl");
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      lines.add("{\"id\": " + i + ", \"text\": \"" + JobFixtures.CANARY + " my parcel " + i
          + " arrived late and damaged\"}");
    }
    Files.write(tickets, lines);
    return new CanaryTickets(dir, keyFile, embeddings, tickets);
  }

  /** Runs {@code sanitize} from {@code input} to {@code output} with this key and model ({@link JobFixtures#sanitize}). */
  public JobFixtures.Run sanitize(Path input, String output, String... extra) {
    return JobFixtures.sanitize(input, output, keyFile, embeddings, extra);
  }

  /** Runs {@code sanitize} between two values as given (paths or catalog table names). */
  public JobFixtures.Run sanitize(String input, String output, String... extra) {
    return JobFixtures.run(JobFixtures.sanitizeArgs(input, output, keyFile, embeddings, extra));
  }

  /** A raw Delta table of the tickets at {@code path}. */
  public String rawTableAt(String path) {
    SharedSpark.get().read().json(tickets.toString()).write().format("delta").save(path);
    return path;
  }

  /** A raw Delta table of the tickets at a new path {@code name} in the directory. */
  public String rawTable(String name) {
    return rawTableAt(dir.resolve(name).toString());
  }

  /** The texts of the Delta table at {@code path}, ordered by id. */
  public List<String> texts(String path) {
    return SharedSpark.get().read().format("delta").load(path).orderBy("id").collectAsList().stream()
        .map(r -> r.<String>getAs("text")).collect(Collectors.toList());
  }
}
