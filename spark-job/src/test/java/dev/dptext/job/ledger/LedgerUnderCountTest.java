package dev.dptext.job.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.job.write.TableWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ways an earlier ledger under-counted, each played through the job as a user would (or, for the
 * accounting alone, on releases the job's own code builds from real reads): every one of these let a run
 * through {@code --epsilon-budget} or counted less than was emitted before the source was identified by its
 * data and the repeat key by what seeds a row.
 */
@Tag("integration")
class LedgerUnderCountTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "8899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677");
    embeddings = JobFixtures.gloveFile(tmp, 3000);
  }

  static Run sanitize(Path input, String name, String ledger, String... extra) {
    List<String> a = new ArrayList<>(List.of("--ledger", ledger, "--mode", "overwrite", "--output-format", "parquet",
        "--input-format", "json"));
    a.addAll(List.of(extra));
    return JobFixtures.sanitize(input, tmp.resolve("out-" + name).toString(), keyFile, embeddings,
        a.toArray(new String[0]));
  }

  static Path partition(String name, int first, int n) throws Exception {
    Path file = tmp.resolve(name).resolve("day=1").resolve("part-0.jsonl");
    Files.createDirectories(file.getParent());
    Files.write(file, LedgerTest.tickets(first, n));
    return file;
  }

  /** Finding 1: the same file through its folder, its own path and a hard link is one source. */
  @Test
  void aFileThroughItsFolderItsOwnPathOrAHardLinkIsChargedOnce() throws Exception {
    Path file = partition("spellings", 0, 20);
    Path root = file.getParent().getParent();
    String ledger = tmp.resolve("ledger-spellings").toString();
    Run nightly = sanitize(file.getParent(), "nightly", ledger, "--epsilon", "3", "--epsilon-budget", "5");
    assertEquals(0, nightly.exitCode(), nightly.err());
    Run backfill = sanitize(root, "backfill", ledger, "--epsilon", "2", "--epsilon-budget", "5");
    assertEquals(0, backfill.exitCode(), backfill.err());
    assertTrue(backfill.out().contains("from 3 to 5"), "the folder run charges the partition's rows: " + backfill.out());
    Run direct = sanitize(file, "direct", ledger, "--epsilon", "1", "--epsilon-budget", "5");
    assertEquals(6, direct.exitCode(), "the file's own path reaches the same rows: " + direct.out() + direct.err());
    Path hard = Files.createLink(tmp.resolve("hard-link.jsonl"), file);
    Run linked = sanitize(hard, "linked", ledger, "--epsilon", "1", "--epsilon-budget", "5");
    assertEquals(6, linked.exitCode(), "a hard link reaches the same rows: " + linked.out() + linked.err());
    Spending s = new Spending(Release.FILES, new LedgerTable(spark, ledger).releases());
    assertEquals(5.0, s.maximum(), 1e-9);
  }

  /** Finding 2: content replaced in place with the same size and modification time is a new snapshot. */
  @Test
  void anEditKeepingSizeAndModificationTimeIsNotARepeat() throws Exception {
    Path file = partition("edited", 0, 12);
    String ledger = tmp.resolve("ledger-edited").toString();
    Run first = sanitize(file, "edited", ledger, "--epsilon", "2", "--epsilon-budget", "3");
    assertEquals(0, first.exitCode(), first.err());
    Run again = sanitize(file, "edited", ledger, "--epsilon", "2", "--epsilon-budget", "3");
    assertEquals(0, again.exitCode(), "the same bytes again: a repeat " + again.err());
    assertTrue(again.out().contains("it adds nothing"), again.out());

    FileTime mtime = Files.getLastModifiedTime(file);
    long size = Files.size(file);
    String text = Files.readString(file, StandardCharsets.UTF_8);
    Files.writeString(file, text.replace("please refund my order today", "please refund my order TODAY"),
        StandardCharsets.UTF_8);
    Files.setLastModifiedTime(file, mtime);
    assertEquals(size, Files.size(file));
    Run edited = sanitize(file, "edited", ledger, "--epsilon", "2", "--epsilon-budget", "3");
    assertEquals(6, edited.exitCode(), "other text, other output: not a repeat " + edited.out() + edited.err());
  }

  /** Finding 4: the same id column read as DOUBLE seeds rows differently from BIGINT: not a repeat. */
  @Test
  void anIdReadWithAnotherTypeIsNotARepeat() throws Exception {
    Path file = partition("typed", 0, 12);
    String ledger = tmp.resolve("ledger-typed").toString();
    Run asLong = sanitize(file, "typed", ledger, "--input-schema", "id BIGINT, text STRING", "--epsilon", "2",
        "--epsilon-budget", "3");
    assertEquals(0, asLong.exitCode(), asLong.err());
    Run asDouble = sanitize(file, "typed", ledger, "--input-schema", "id DOUBLE, text STRING", "--epsilon", "2",
        "--epsilon-budget", "3");
    assertEquals(6, asDouble.exitCode(), "5.0 seeds otherwise than 5: " + asDouble.out() + asDouble.err());
    Run asLongAgain = sanitize(file, "typed", ledger, "--input-schema", "id BIGINT, text STRING", "--epsilon", "2",
        "--epsilon-budget", "3");
    assertEquals(0, asLongAgain.exitCode(), "the BIGINT run again is a repeat: " + asLongAgain.err());
  }

  /**
   * Issue 53: how the bytes are read. A headerless CSV ({@code id,review,note}) read with its two text columns
   * in the other order, or with an input option that changes the values, emits other outputs for the same
   * rows under the same text column's name: each is a new release; the same read again is a repeat.
   */
  @Test
  void anotherWayOfReadingTheSameBytesIsNotARepeat() throws Exception {
    Path file = tmp.resolve("reviews").resolve("t.csv");
    Files.createDirectories(file.getParent());
    List<String> lines = new ArrayList<>();
    List<String> texts = LedgerTest.tickets(0, 12);
    for (int id = 0; id < 12; id++) {
      String text = texts.get(id).replaceAll(".*\"text\": \"(.*)\"}", "$1");
      lines.add(id + ", " + text + ", note " + id + " about the order");
    }
    Files.write(file, lines);
    String ledger = tmp.resolve("ledger-read").toString();
    String[] csv = {"--input-format", "csv", "--text-column", "review", "--epsilon", "1", "--epsilon-budget", "2.5"};
    Run first = readAs(file, ledger, "id BIGINT, review STRING, note STRING", csv);
    assertEquals(0, first.exitCode(), first.err());
    Run again = readAs(file, ledger, "id BIGINT, review STRING, note STRING", csv);
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("it adds nothing"), "the same read again: " + again.out());
    Run swapped = readAs(file, ledger, "id BIGINT, note STRING, review STRING", csv);
    assertEquals(0, swapped.exitCode(), swapped.err());
    assertTrue(swapped.out().contains("it adds ε 1 to 12 row key(s)"), "other texts, other outputs: " + swapped.out());
    List<String> trimmedArgs = new ArrayList<>(List.of(csv));
    trimmedArgs.addAll(List.of("--input-option", "ignoreLeadingWhiteSpace=true"));
    Run trimmed = readAs(file, ledger, "id BIGINT, review STRING, note STRING", trimmedArgs.toArray(new String[0]));
    assertEquals(6, trimmed.exitCode(), "texts without their leading space are other texts, past the budget: "
        + trimmed.out() + trimmed.err());
  }

  /**
   * The options {@code ReleaseIdentityOptionsTest} says no output row depends on, changed together: the
   * rows written are the same, row for row.
   */
  @Test
  void optionsOfTheWriteChangeNoOutputRow() throws Exception {
    Path file = partition("written", 0, 16);
    Run plain = JobFixtures.sanitize(file, tmp.resolve("out-plain").toString(), keyFile, embeddings, "--input-format",
        "json", "--output-format", "parquet", "--mode", "overwrite");
    assertEquals(0, plain.exitCode(), plain.err());
    String delta = tmp.resolve("out-delta").toString();
    Run changed = JobFixtures.sanitize(file, delta, keyFile, embeddings, "--input-format", "json",
        "--output-format", "delta", "--mode", "append", "--partitions", "3", "--show", "2",
        "--summary-json", tmp.resolve("summary.json").toString(), "--txn-app-id", "nightly", "--txn-version", "7",
        "--on-corrupt", "reject", "--rejects", tmp.resolve("rejects").toString(), "--ledger",
        tmp.resolve("ledger-written").toString(), "--epsilon-budget", "100");
    assertEquals(0, changed.exitCode(), changed.err());
    assertEquals(spark.read().parquet(tmp.resolve("out-plain").toString()).orderBy("id").collectAsList(),
        spark.read().format("delta").load(delta).orderBy("id").collectAsList());
  }

  private static Run readAs(Path file, String ledger, String schema, String... extra) {
    List<String> a = new ArrayList<>(List.of("--ledger", ledger, "--mode", "overwrite", "--output-format", "parquet",
        "--input-schema", schema));
    a.addAll(List.of(extra));
    return JobFixtures.sanitize(file, tmp.resolve("out-read").toString(), keyFile, embeddings, a.toArray(new String[0]));
  }

  /**
   * Issue 53: a TIMESTAMP id seeds its row by the instant, not by the JVM's local time: the same command in two
   * time zones gives the same rows, and is a repeat (before, every output differed and the ledger took the
   * second run for a repeat).
   */
  @Test
  void timestampIdsSeedAlikeInEveryTimeZone() throws Exception {
    Path file = tmp.resolve("stamped").resolve("t.jsonl");
    Files.createDirectories(file.getParent());
    List<String> lines = new ArrayList<>();
    List<String> texts = LedgerTest.tickets(0, 12);
    for (int i = 0; i < 12; i++) {
      lines.add(texts.get(i).replace("{\"id\": " + i + ",", "{\"id\": \"2026-03-0" + (1 + i % 9) + "T0" + (i % 10)
          + ":15:00.25Z\","));
    }
    Files.write(file, lines);
    String ledger = tmp.resolve("ledger-zones").toString();
    java.util.TimeZone zone = java.util.TimeZone.getDefault();
    List<List<String>> outputs = new ArrayList<>();
    try {
      for (String id : new String[] {"UTC", "Asia/Tokyo"}) {
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone(id));
        String out = tmp.resolve("out-zones-" + id.replace('/', '-')).toString();
        Run run = JobFixtures.sanitize(file, out, keyFile, embeddings, "--ledger", ledger, "--mode", "overwrite",
            "--output-format", "parquet", "--input-format", "json", "--input-schema", "id TIMESTAMP, text STRING",
            "--epsilon", "2", "--epsilon-budget", "3");
        assertEquals(0, run.exitCode(), id + ": " + run.out() + run.err());
        if (!outputs.isEmpty()) {
          assertTrue(run.out().contains("it adds nothing"), id + ": the same rows again: " + run.out());
        }
        outputs.add(spark.read().parquet(out).orderBy("id").select("text").as(
            org.apache.spark.sql.Encoders.STRING()).collectAsList());
      }
    } finally {
      java.util.TimeZone.setDefault(zone);
    }
    assertEquals(outputs.get(0), outputs.get(1), "a row's output does not depend on the JVM's time zone");
  }

  /** Finding 5: hashed-id buckets of a release never land in the integral id space of another. */
  @Test
  void hashedBucketsStayOutOfTheIntegralIdSpace() {
    Dataset<Row> longs = spark.range(1000, 1100).toDF("id");
    Dataset<Row> strings = longs.selectExpr("concat('user-', CAST(id AS STRING)) AS id");
    ReleasedRows integral = ReleasedRows.of(longs, "id");
    ReleasedRows hashed = ReleasedRows.of(strings, "id");
    assertNotEquals(integral.space(), hashed.space());
    Release a = new Release("a", new java.sql.Timestamp(1), "delta:t", "v1", integral, "santext", "santext", 1, "g",
        "k", "column", "s", "c", "out", "test");
    Release b = new Release("b", new java.sql.Timestamp(2), "delta:t", "v1", hashed, "santext", "santext", 1, "g",
        "k", "column", "s", "c", "out", "test");
    assertNotEquals(a.repeatKey(), b.repeatKey(), "another seed form: another release");
    Spending s = new Spending("delta:t", List.of(a, b));
    long integralKeys = s.segments().stream().filter(g -> g.space().equals(integral.space()))
        .mapToLong(g -> g.hi() - g.lo() + 1).sum();
    assertEquals(100, integralKeys, "the integral space holds the 100 ids, no bucket beside them");
    assertEquals(2.0, s.maximum(), 1e-9, "each release counts against the other space's rows");
  }

  /**
   * Finding 6: an in-place keep-history run whose commit another writer's follows (forced: the other
   * writer commits just before the run's write starts, after the run read its version) wrote a version
   * that stays readable by time travel: the ledger counts it as committed, not withdrawn.
   */
  @Test
  void aKeepHistoryRunUndoneAfterItsCommitStaysCounted() throws Exception {
    String table = tmp.resolve("in-place").toString();
    Path json = tmp.resolve("in-place.jsonl");
    Files.write(json, LedgerTest.tickets(0, 10));
    spark.read().json(json.toString()).write().format("delta").save(table);
    String ledger = tmp.resolve("ledger-in-place").toString();
    TableWriter.beforeDeltaWrite = () -> {
      TableWriter.beforeDeltaWrite = null;
      spark.read().json(json.toString()).limit(2).write().format("delta").mode("append").save(table);
    };
    Run run;
    try {
      run = JobFixtures.run(JobFixtures.sanitizeArgs(table, table, keyFile, embeddings, "--ledger", ledger,
          "--mode", "overwrite", "--in-place", "keep-history"));
    } finally {
      TableWriter.beforeDeltaWrite = null;
    }
    assertEquals(5, run.exitCode(), "a conflict: " + run.out() + run.err());
    LedgerTable.Contents c = new LedgerTable(spark, ledger).read();
    assertEquals(1, c.releases().size(), "the release counts");
    long version = c.committed().get(c.releases().get(0).releaseId());
    assertEquals(10, spark.read().format("delta").option("versionAsOf", version).load(table).count(),
        "its version is readable");
    assertFalse(spark.read().format("delta").option("versionAsOf", version).load(table)
        .where("text = 'please refund my order today'").count() > 0, "and sanitized");
  }
}
