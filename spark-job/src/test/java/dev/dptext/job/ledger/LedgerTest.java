package dev.dptext.job.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The privacy ledger through the command line, on real Delta tables: repeats, key rotation, overlapping id
 * ranges, the budget and the dry run, releases without ids, a stream's micro-batches ({@link LedgerKillTest}:
 * a run killed between its record and its write).
 */
@Tag("integration")
class LedgerTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path otherKey;
  static Path embeddings;
  static String source;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "8899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677");
    Path keys = Files.createDirectories(tmp.resolve("other"));
    otherKey = JobFixtures.keyFile(keys, "1199aabbccddeeff00112233445566778899aabbccddeeff0011223344556600");
    embeddings = JobFixtures.gloveFile(tmp, 3000);
    Path json = tmp.resolve("tickets.jsonl");
    Files.write(json, tickets(0, 30));
    source = tmp.resolve("source").toString();
    spark.read().json(json.toString()).write().format("delta").save(source);
  }

  /** Tickets with ids {@code first} to {@code first + n - 1}. */
  static List<String> tickets(int first, int n) {
    String[] texts = {"the delivery was late and the box was damaged", "please refund my order today",
        "great service from the support team", "my phone keeps crashing after the update"};
    List<String> lines = new ArrayList<>();
    for (int id = first; id < first + n; id++) {
      lines.add("{\"id\": " + id + ", \"text\": \"" + texts[id % texts.length] + "\"}");
    }
    return lines;
  }

  static Run sanitize(Path key, String output, String ledger, String... extra) {
    List<String> a = new ArrayList<>(List.of("--ledger", ledger, "--mode", "overwrite"));
    a.addAll(List.of(extra));
    return JobFixtures.sanitize(Path.of(source), output, key, embeddings, a.toArray(new String[0]));
  }

  static LedgerReport report(String ledger) {
    return LedgerReport.of(new LedgerTable(spark, ledger).read(), null);
  }

  static Spending only(String ledger) {
    List<Spending> s = report(ledger).sources();
    assertEquals(1, s.size(), "one source");
    return s.get(0);
  }

  @Test
  void aRepeatAddsNothingAndAnotherKeyOrEpsilonAddsUp() {
    String ledger = tmp.resolve("ledger-repeat").toString();
    String out = tmp.resolve("out-repeat").toString();
    Run first = sanitize(keyFile, out, ledger);
    assertEquals(0, first.exitCode(), first.err());
    assertTrue(first.out().contains("it adds ε 3 to 30 row key(s)"), first.out());
    assertEquals(3.0, only(ledger).maximum());

    Run again = sanitize(keyFile, out, ledger);
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("it adds nothing"), again.out());
    Spending s = only(ledger);
    assertEquals(3.0, s.maximum());
    assertEquals(2, s.releases().size());
    assertTrue(s.source().startsWith("delta:"), s.source());

    // The same source through another spelling of its path (a symbolic link) is the same source.
    Path link = tmp.resolve("source-link");
    try {
      Files.createSymbolicLink(link, Path.of(source));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    Run viaLink = JobFixtures.sanitize(link, out, keyFile, embeddings, "--ledger", ledger, "--mode", "overwrite",
        "--epsilon", "2");
    assertEquals(0, viaLink.exitCode(), viaLink.err());
    assertEquals(5.0, only(ledger).maximum(), "ε 2 more, same source");

    Run rotated = sanitize(otherKey, out, ledger);
    assertEquals(0, rotated.exitCode(), rotated.err());
    assertEquals(8.0, only(ledger).maximum(), "a new key releases the rows again");
    assertEquals(Map.of(8.0, 30L), only(ledger).distribution());

    // Every release names its output commit, and the commit names the release.
    LedgerTable.Contents c = new LedgerTable(spark, ledger).read();
    assertEquals(4, c.committed().size());
    Release last = c.releases().get(c.releases().size() - 1);
    String meta = spark.sql("DESCRIBE HISTORY delta.`" + out + "`").where("operation = 'WRITE'").orderBy(
        org.apache.spark.sql.functions.col("version").desc()).first().getAs("userMetadata");
    assertTrue(meta.contains(last.releaseId()), meta);
    assertFalse(spark.sql("SHOW TBLPROPERTIES delta.`" + out + "`").where("key = 'dptext.release'").count() > 0,
        "the release id is the commit's, not a table property (which would cost each run a second commit)");

    Run shown = JobFixtures.run("ledger", "--ledger", ledger);
    assertEquals(0, shown.exitCode(), shown.err());
    assertTrue(shown.out().contains("largest ε per row 8"), shown.out());
    assertTrue(shown.out().contains("nothing (a repeat)"), shown.out());
  }

  @Test
  void overlappingIdRangesAndTheBudget() throws Exception {
    String ledger = tmp.resolve("ledger-budget").toString();
    Run a = sanitize(keyFile, tmp.resolve("out-a").toString(), ledger, "--where", "id < 20", "--epsilon-budget", "5");
    assertEquals(0, a.exitCode(), a.err());
    Run dry = sanitize(otherKey, tmp.resolve("out-b").toString(), ledger, "--where", "id >= 10", "--epsilon", "2",
        "--dry-run");
    assertEquals(0, dry.exitCode(), dry.err());
    assertTrue(dry.out().contains("Dry run: this run would release 20 rows"), dry.out());
    assertTrue(dry.out().contains("from 3 to 5"), dry.out());
    assertFalse(Files.exists(tmp.resolve("out-b")), "a dry run writes nothing");
    assertEquals(1, only(ledger).releases().size(), "a dry run records nothing");

    Run over = sanitize(otherKey, tmp.resolve("out-b").toString(), ledger, "--where", "id >= 10",
        "--epsilon-budget", "5");
    assertEquals(6, over.exitCode(), over.out() + over.err());
    assertTrue(over.err().contains("10 row key(s)"), over.err());
    assertTrue(over.err().contains(only(ledger).releases().get(0).releaseId()), "names the earlier release: "
        + over.err());
    assertFalse(Files.exists(tmp.resolve("out-b")), "nothing written");
    assertEquals(1, only(ledger).releases().size(), "a refused run is not recorded");

    Run within = sanitize(otherKey, tmp.resolve("out-b").toString(), ledger, "--where", "id >= 10", "--epsilon", "2",
        "--epsilon-budget", "5");
    assertEquals(0, within.exitCode(), within.err());
    assertEquals(Map.of(3.0, 10L, 5.0, 10L, 2.0, 10L), only(ledger).distribution());
    assertEquals(List.of(only(ledger).releases().get(0).releaseId()), only(ledger).added().get(1).sharesRowsWith());
  }

  /**
   * Runs racing for the last of a budget, at the ledger's gate (the same calls a run makes between reading
   * and writing), on a new ledger (so they also race to create it): the budget holds whatever the order.
   */
  @Test
  void concurrentRunsCannotTogetherExceedTheBudget() throws Exception {
    String ledger = tmp.resolve("ledger-race").toString();
    int runs = 4;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(runs);
    java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
    List<java.util.concurrent.Future<String>> outcomes = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      String key = "key-" + i; // each its own key: every run is a new release of ids 0-9
      outcomes.add(pool.submit(() -> {
        start.await();
        ReleasePlan plan = new ReleasePlan(ledger, 5.0, "delta:race", "id", "santext", "santext ε=3.0", 3.0, "g", key,
            "column", "s", "out", ContentKey.NONE);
        ReleasedRows rows = new ReleasedRows("id", ReleasedRows.Kind.INTEGRAL, "integral",
            List.of(new ReleasedRows.Range(0, 9)), true, 10);
        try {
          LedgerGate.before(spark, plan, "v1", rows, null, false, line -> { });
          return "recorded";
        } catch (dev.dptext.job.base.JobException e) {
          assertEquals(dev.dptext.job.base.ExitCode.BUDGET, e.exitCode, e.getMessage());
          return "refused";
        }
      }));
    }
    start.countDown();
    List<String> results = new ArrayList<>();
    for (var f : outcomes) {
      results.add(f.get(3, TimeUnit.MINUTES));
    }
    pool.shutdown();
    System.out.println("concurrent runs at the ledger gate: " + results);
    long recorded = results.stream().filter("recorded"::equals).count();
    assertTrue(recorded <= 1, "at most one run fits a budget of 5 at ε 3: " + results);
    Spending s = only(ledger);
    assertTrue(s.maximum() <= 5.0, "the budget holds: " + s.maximum() + " " + results);
    assertEquals(recorded, s.releases().size(), "the refused runs withdrew their records");
  }

  /** A ledger at the output, inside the input or behind a link to the output is refused before anything happens. */
  @Test
  void aLedgerThatIsOneOfTheRunsTablesIsRefused() throws Exception {
    String out = tmp.resolve("out-wrong").toString();
    Path link = tmp.resolve("out-wrong-link");
    Files.createDirectories(Path.of(out));
    Files.createSymbolicLink(link, Path.of(out));
    for (String ledger : List.of(out, source + "/ledger", link.toString(), tmp.toString())) {
      Run r = sanitize(keyFile, out, ledger);
      assertEquals(2, r.exitCode(), ledger + ": " + r.out() + r.err());
      assertTrue(r.err().contains("--ledger " + ledger + " is, contains or lies inside"), r.err());
    }
    assertFalse(Files.exists(Path.of(out, "_delta_log")), "nothing written");
    assertFalse(Files.exists(Path.of(source, "ledger")), "nothing written");
  }

  @Test
  void releasesWithoutIdsOrWithFreshRandomnessNeverRepeat() {
    String ledger = tmp.resolve("ledger-fresh").toString();
    String out = tmp.resolve("out-fresh").toString();
    for (int i = 0; i < 2; i++) {
      Run r = JobFixtures.run("sanitize", "--input", source, "--output", out, "--mode", "overwrite", "--id-mode",
          "fresh", "--model", embeddings.toString(), "--neighbours", "32", "--progress-interval", "0", "--ledger",
          ledger);
      assertEquals(0, r.exitCode(), r.err());
    }
    Spending s = only(ledger);
    assertEquals(6.0, s.maximum(), "fresh randomness is a new release each time");
    assertNull(s.releases().get(0).keyFingerprint());
    assertEquals(ReleasedRows.Kind.NONE, s.releases().get(0).rows().kind());
  }

  @Test
  void aStreamRecordsEachMicroBatch() throws Exception {
    String ledger = tmp.resolve("ledger-stream").toString();
    Path in = tmp.resolve("stream-in");
    Files.createDirectories(in);
    for (int f = 0; f < 3; f++) {
      Path file = in.resolve("part-" + f + ".json");
      Files.write(file, tickets(10 * f, 10));
      // The file source takes the oldest files first: one file per micro-batch, in this order.
      Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(1_700_000_000_000L + 1000L * f));
    }
    String out = tmp.resolve("stream-out").toString();
    String[] command = {"sanitize", "--stream", "--checkpoint", tmp.resolve("stream-cp").toString(),
        "--max-files-per-trigger", "1", "--input", in.toString(), "--input-format", "json", "--input-schema",
        "id BIGINT, text STRING", "--output", out, "--id-column", "id", "--model",
        embeddings.toString(), "--neighbours", "32", "--key-file", keyFile.toString(), "--progress-interval", "0",
        "--ledger", ledger};
    Run r = JobFixtures.run(command);
    assertEquals(0, r.exitCode(), r.err());
    Spending s = only(ledger);
    assertEquals(3, s.releases().size(), "one release per micro-batch");
    assertEquals(3.0, s.maximum(), "each micro-batch releases other rows");
    assertEquals(30, s.distribution().get(3.0));
    assertEquals(3, new LedgerTable(spark, ledger).read().committed().size());
  }
}
