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

  /** Finding 5: hashed-id buckets of a release never land in the integral id space of another. */
  @Test
  void hashedBucketsStayOutOfTheIntegralIdSpace() {
    Dataset<Row> longs = spark.range(1000, 1100).toDF("id");
    Dataset<Row> strings = longs.selectExpr("concat('user-', CAST(id AS STRING)) AS id");
    ReleasedRows integral = ReleasedRows.of(longs, "id");
    ReleasedRows hashed = ReleasedRows.of(strings, "id");
    assertNotEquals(integral.space(), hashed.space());
    Release a = new Release("a", new java.sql.Timestamp(1), "delta:t", "v1", integral, "santext", "santext", 1, "g",
        "k", "column", "s", "out", "test");
    Release b = new Release("b", new java.sql.Timestamp(2), "delta:t", "v1", hashed, "santext", "santext", 1, "g",
        "k", "column", "s", "out", "test");
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
