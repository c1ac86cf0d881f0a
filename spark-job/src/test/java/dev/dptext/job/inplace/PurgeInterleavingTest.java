package dev.dptext.job.inplace;

import static dev.dptext.job.testing.JobFixtures.CANARY;
import static dev.dptext.job.testing.JobFixtures.canaryFound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.CanaryTickets;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.testing.ErrorAssertions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code --in-place purge-history} against a concurrent writer whose transaction was prepared from
 * the raw table's snapshot and commits right after a given step of the purge, for every step of the
 * swap ({@link InPlaceSwap#afterStep}) and for append, DELETE, UPDATE, MERGE and a second purge (run
 * to its end at the step of each append case). No timing is left to chance: the writer starts before
 * the purge, reads the raw table and blocks inside its own Spark job (a UDF waiting on a latch, before a
 * shuffle, so that its data files are written only once released); the purge's hook at the step
 * releases it and waits until it has committed or failed before the purge goes on. Two more cases
 * start an append right after a step and let it commit after the purge. After each case: the table is readable,
 * its rows are what the exit code and the writer's outcome promise, a purge that reports success
 * leaves no byte of the raw canary anywhere in the table's folder (Parquet, {@code _delta_log} JSON
 * and {@code .crc} included), and one that does not leaves the raw table as it was. Then the same table
 * through other writers between in-place runs, one after the other: "nothing to do" only with no raw row left.
 */
@Tag("integration")
class PurgeInterleavingTest {
  @TempDir static Path tmp;
  static CanaryTickets fx;
  /** The raw table each case copies (a file copy of a Delta table is the same table at another path). */
  static Path template;
  static SparkSession spark;
  static final List<String> outcomes = Collections.synchronizedList(new ArrayList<>());

  /** The latch pair the gate UDF waits on; null: the UDF lets every row through. */
  static volatile Gate gate;

  static final class Gate {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
  }

  /** The concurrent writers; with an append, a second purge is also run at the step. */
  enum Writer { APPEND, DELETE, UPDATE, MERGE }

  /** The swap's steps ("verified", between the last two, is like "raw-deleted" for a writer: not run by default). */
  static final List<String> STEPS = List.of("staged", "ready", "marked", "raw-renamed", "staging-renamed",
      "raw-deleted");

  @BeforeAll
  static void setUp() throws Exception {
    fx = CanaryTickets.in(tmp);
    spark = SharedSpark.get();
    template = Path.of(fx.rawTable(".template"));
    // A raw table with a history longer than the new table's own commits (its rows, its properties):
    // without the fence, a commit prepared from it would land as the new log's next free version.
    spark.sql("ALTER TABLE delta.`" + template + "` SET TBLPROPERTIES ('purge.test.history' = 'one more version')");
    spark.udf().register("purge_gate", (UDF1<Long, Boolean>) id -> {
      Gate g = gate;
      // Only the first row to get here waits: a statement may evaluate its source in two stages at once
      // (MERGE does), and a second waiting task would take local[2]'s last slot from the purge.
      if (g != null && g.first.compareAndSet(true, false)) {
        g.entered.countDown();
        if (!g.release.await(180, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the gate was never opened");
        }
      }
      return true;
    }, DataTypes.BooleanType);
  }

  @AfterEach
  void reset() {
    InPlaceSwap.afterStep = step -> { };
    Gate g = gate;
    gate = null;
    if (g != null) {
      g.release.countDown();
    }
  }

  @AfterAll
  static void report() {
    System.out.println("PurgeInterleavingTest outcomes (step x writer: purge exit | writer):");
    outcomes.forEach(o -> System.out.println("  " + o));
  }

  /**
   * The suite's cases: every step and every writer once, a fenced writer (MERGE, append) at each step after the
   * swap's renames (where the unfenced purge lost rows and left raw text), a second purge with each append; the
   * suite's 18 minutes allow no more. The whole product (6 steps x 4 writers, 24 purges, ~4 minutes here) and
   * both late readers run with {@code -DpurgeMatrix=full} (docs/writes.md); all passed when the fence was written.
   */
  static final List<String> ROTATION = List.of("staged:DELETE", "ready:UPDATE", "marked:MERGE", "raw-renamed:APPEND",
      "staging-renamed:MERGE", "raw-deleted:APPEND");

  static Stream<Arguments> cases() {
    // -DpurgeSteps=a,b and -DpurgeWriters=X,Y narrow the full matrix while working on one case.
    boolean full = System.getProperty("purgeMatrix", "").equals("full") || System.getProperty("purgeSteps") != null
        || System.getProperty("purgeWriters") != null;
    if (!full) {
      return ROTATION.stream().map(c -> Arguments.of(c.split(":")[0], Writer.valueOf(c.split(":")[1])));
    }
    List<String> steps = List.of(System.getProperty("purgeSteps", String.join(",", STEPS)).split(","));
    List<String> writers = List.of(System.getProperty("purgeWriters", "APPEND,DELETE,UPDATE,MERGE").split(","));
    return steps.stream().flatMap(s -> Stream.of(Writer.values()).filter(w -> writers.contains(w.name()))
        .map(w -> Arguments.of(s, w)));
  }

  /** The writer's statement: one Spark task blocked on the gate (local[2] keeps a slot for the purge). */
  static void write(Writer w, String table, String name) {
    String t = "delta.`" + table + "`";
    switch (w) {
      // The gate sits before a shuffle, so that the write's own tasks (which open their files at
      // once) run only after it opened: the files land in whatever is at the path by then.
      case APPEND -> spark.range(1000, 1005, 1, 1).where("purge_gate(id)").repartition(1)
          .selectExpr("id", "concat('appended row ', id) AS text").write().format("delta").mode("append").save(table);
      case DELETE -> spark.sql("DELETE FROM " + t + " WHERE id < 5 AND purge_gate(id)");
      case UPDATE -> spark.sql("UPDATE " + t + " SET id = id + 1000 WHERE id < 5 AND purge_gate(id)");
      case MERGE -> {
        spark.range(2000, 2005, 1, 1).where("purge_gate(id)").repartition(1).selectExpr("id", "'merged row' AS text")
            .createOrReplaceTempView("merge_src_" + name);
        spark.sql("MERGE INTO " + t + " AS t USING merge_src_" + name + " AS s ON t.id = s.id "
            + "WHEN NOT MATCHED THEN INSERT *");
      }
      default -> throw new IllegalArgumentException(w.toString());
    }
  }

  static Run purge(String table) {
    return fx.sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", "purge-history");
  }

  @ParameterizedTest(name = "{1} committing right after {0}")
  @MethodSource("cases")
  void aWriterPreparedFromTheRawTableLosesNothingAndLeavesNoRawText(String step, Writer writer) throws Exception {
    interleave(step, writer, false);
  }

  /**
   * The other way round: the writer's transaction starts right after the step (reading whatever is at
   * the path then) and commits after the purge ended. Read at the mark: the raw table's last version,
   * so its commit meets the fence. Read after the new table was renamed in: an append to the new
   * table, which stays.
   */
  @ParameterizedTest(name = "append read right after {0}, committing after the purge")
  @MethodSource("readAtStep")
  void aWriterPreparedAtAStepAndCommittingAfterThePurgeLosesNothing(String step) throws Exception {
    interleave(step, Writer.APPEND, true);
  }

  static Stream<String> readAtStep() {
    return System.getProperty("purgeMatrix", "").equals("full") ? Stream.of("marked", "staging-renamed")
        : Stream.of("marked");
  }

  /**
   * One case. Not {@code readAtStep}: the writer starts before the purge and commits right after
   * {@code step}; with an append, a second purge of the table is also run to its end at that step
   * (first). {@code readAtStep}: the writer starts right after {@code step} and commits after the purge.
   */
  void interleave(String step, Writer writer, boolean readAtStep) throws Exception {
    String name = step.replace("-", "_") + "_" + writer.name().toLowerCase() + (readAtStep ? "_late" : "");
    String table = copyOfTemplate(name);
    Thread purger = Thread.currentThread();
    AtomicReference<Throwable> writerFailure = new AtomicReference<>();
    AtomicReference<Run> second = new AtomicReference<>();
    AtomicReference<Throwable> hookProblem = new AtomicReference<>();
    Gate g = new Gate();
    gate = g;
    CompletableFuture<Void> concurrent = new CompletableFuture<>();
    Runnable startWriter = () -> CompletableFuture.runAsync(() -> {
      try {
        write(writer, table, name);
      } catch (Throwable t) {
        writerFailure.set(t);
      }
      concurrent.complete(null);
    });
    if (!readAtStep) {
      startWriter.run();
      // The writer's transaction has read the raw table and its job is blocked.
      assertTrue(g.entered.await(120, TimeUnit.SECONDS), "the writer never reached its gate");
    }
    boolean secondPurge = writer == Writer.APPEND && !readAtStep;
    InPlaceSwap.afterStep = s -> {
      if (!s.equals(step) || Thread.currentThread() != purger) {
        return;
      }
      try {
        if (secondPurge) {
          // A second purge of the same table, run to its end while this one is at the step.
          second.set(CompletableFuture.supplyAsync(() -> purge(table)).get(180, TimeUnit.SECONDS));
        }
        if (readAtStep) {
          startWriter.run();
          if (!g.entered.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the writer never reached its gate");
          }
        } else {
          g.release.countDown();
          concurrent.get(180, TimeUnit.SECONDS); // committed or failed, before the purge goes on
        }
      } catch (Exception e) {
        hookProblem.set(e);
      }
    };
    Run r = purge(table);
    InPlaceSwap.afterStep = x -> { };
    boolean started = !readAtStep || g.entered.getCount() == 0;
    g.release.countDown(); // after the purge, or had it stopped before the step
    if (started) {
      concurrent.get(180, TimeUnit.SECONDS);
    }
    gate = null;
    assertNull(hookProblem.get());

    boolean writerOk = started && writerFailure.get() == null;
    String writerSays = !started ? "not started (step not reached)" : writerOk ? "committed"
        : writerFailure.get().getClass().getSimpleName() + ": " + firstLine(String.valueOf(writerFailure.get().getMessage()));
    String outcome = String.format("%-15s x %-6s%s: purge exit %d%s | writer %s%s", step, writer,
        readAtStep ? " (read at step)" : "", r.exitCode(), r.exitCode() == 0 ? "" : " (" + firstLine(r.err()) + ")",
        writerSays, second.get() == null ? "" : " | second purge exit " + second.get().exitCode() + " ("
            + firstLine(second.get().err()) + ")");
    outcomes.add(outcome);

    assertTrue(r.exitCode() == 0 || r.exitCode() == 5, outcome + "\n" + r.err());
    var rows = spark.read().format("delta").load(table); // readable
    long total = rows.count();
    int added = writerOk && (writer == Writer.APPEND || writer == Writer.MERGE) ? 5 : 0;
    int deleted = writerOk && writer == Writer.DELETE ? 5 : 0;
    assertEquals(20 + added - deleted, total, outcome);
    switch (writer) {
      case APPEND -> assertEquals(added, rows.where("text LIKE 'appended row%'").count(), outcome);
      case MERGE -> assertEquals(added, rows.where("text = 'merged row'").count(), outcome);
      case DELETE -> assertEquals(writerOk ? 0 : 5, rows.where("id < 5").count(), outcome);
      case UPDATE -> assertEquals(writerOk ? 5 : 0, rows.where("id >= 1000").count(), outcome);
      default -> { }
    }
    if (secondPurge) {
      Run s = second.get();
      if (s != null) {
        // The purge holding the lock is still running: the second one ends at once, naming the
        // user's --output and what to do, not the staging path.
        assertEquals(5, s.exitCode(), outcome);
        ErrorAssertions.assertErrorText(s.err(), "IN_PLACE_PURGE_BUSY");
        assertTrue(s.err().contains(table), s.err());
        assertFalse(s.err().contains("dptext-staging"), s.err());
      }
    }
    if (r.exitCode() == 0) {
      assertEquals(List.of(), canaryFound(Path.of(table)), outcome);
    } else {
      // The raw table, as it was plus what the writer committed: every original row that remains
      // still holds its raw text.
      assertEquals(20 - deleted, rows.where("text LIKE '%" + CANARY + "%'").count(), outcome);
    }
    for (String left : List.of("staging", "raw", "purge.lock")) {
      assertFalse(Files.exists(tmp.resolve("." + name + ".dptext-" + left)), outcome + ": ." + left + " left");
    }
  }

  /**
   * The purge lock: one held by a running purge (refreshed) ends another purge at once, naming the
   * --output; one a killed purge left behind (not refreshed for two minutes) is taken over.
   */
  @org.junit.jupiter.api.Test
  void aHeldLockEndsASecondPurgeAndAnAbandonedOneIsTakenOver() throws Exception {
    String table = copyOfTemplate("locked");
    Path lock = tmp.resolve(".locked.dptext-purge.lock");
    Files.writeString(lock, "runId=another\noutput=" + table + "\nstarted=2026-11-28T00:00:00Z\n");
    Run busy = purge(table);
    assertEquals(5, busy.exitCode(), busy.err());
    ErrorAssertions.assertErrorText(busy.err(), "IN_PLACE_PURGE_BUSY");
    assertTrue(busy.err().contains(table), busy.err());
    assertFalse(busy.err().contains("dptext-staging"), busy.err());
    assertEquals(20, spark.read().format("delta").load(table).where("text LIKE '%" + CANARY + "%'").count());
    assertTrue(Files.exists(lock), "another run's lock is not this run's to delete");

    Files.setLastModifiedTime(lock, java.nio.file.attribute.FileTime.fromMillis(
        System.currentTimeMillis() - InPlaceSwap.LOCK_STALE_MS - 1000));
    Run r = purge(table);
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of(), canaryFound(Path.of(table)));
    assertFalse(Files.exists(lock));
  }

  /**
   * "Nothing to do" is judged by what the table holds, not by who wrote its newest commit (issue 53: a dptext
   * append from another input into the raw table made a purge report success over the raw rows). One table
   * goes through other writers and in-place runs, each writer after one run and before the next: a dptext
   * append from another input (its rows sanitized, the raw ones staying), a plain Spark append of raw rows,
   * an {@code UPDATE} writing raw text, each followed by a dptext append where it made the newest commit
   * dptext's. Each run may report nothing to do only when no raw row is left (purge-history: in no version;
   * keep-history: in no live row), and otherwise runs and leaves none (purge-history: no raw canary in any
   * file of the table's folder; keep-history: in no live row, its raw versions staying as it says).
   */
  @org.junit.jupiter.api.Test
  void aRunSaysNothingToDoOnlyWhenNoRawRowIsLeftWhoeverWroteTheNewestCommit() throws Exception {
    String table = copyOfTemplate("judged");
    // Before any in-place run: the newest commit is dptext's, the raw rows are all there.
    dptextAppend(table, 1);
    judged("purge-history", table, false, 25, "before a purge, a dptext append");
    // After the purge: a dptext append keeps every version free of raw rows.
    dptextAppend(table, 2);
    Run clean = judged("purge-history", table, true, 30, "after a purge, a dptext append");
    assertTrue(clean.out().contains("no version of " + table + " holds a raw row"), clean.out());
    // After the purge: raw rows by another writer, then a dptext append (the newest commit dptext's again).
    spark.range(3000, 3005).selectExpr("id", "concat('" + CANARY + " another writer row ', id) AS text").write()
        .format("delta").mode("append").save(table);
    dptextAppend(table, 3);
    judged("purge-history", table, false, 40, "after a purge, a plain append, a dptext append");
    // After the purge: an UPDATE writing raw text, then a dptext append.
    spark.sql("UPDATE delta.`" + table + "` SET text = concat('" + CANARY + " updated ', id) WHERE id < 3");
    dptextAppend(table, 4);
    judged("keep-history", table, false, 45, "after a purge, an UPDATE, a dptext append");
    // After keep-history: every live row is sanitized; its raw versions stay, and the message says so.
    dptextAppend(table, 5);
    Run kept = judged("keep-history", table, true, 50, "after keep-history, a dptext append");
    assertTrue(kept.out().contains("still hold rows dptext did not sanitize"), kept.out());
    // A purge of that table: the live rows are dptext's but raw versions are readable, so it runs (and says so).
    // Its fence follows the long history (~9 s here): with -DpurgeMatrix=full only; SanitizedHistoryTest has the rule.
    if (!System.getProperty("purgeMatrix", "").equals("full")) {
      return;
    }
    Run purged = judged("purge-history", table, false, 50, "after keep-history, nothing");
    assertTrue(purged.out().contains("purge-history sanitizes the current rows again"), purged.out());
  }

  /**
   * The next in-place run of {@code policy} on {@code table}: exit 0, "nothing to do" exactly when
   * {@code nothingToDo}, {@code rows} rows, and no raw canary left (see the test above).
   */
  Run judged(String policy, String table, boolean nothingToDo, long rows, String what) throws Exception {
    long start = System.nanoTime();
    Run r = fx.sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", policy);
    String outcome = policy + " " + what + ": exit " + r.exitCode() + "\n" + r.out() + r.err();
    outcomes.add(String.format("%-46s: %s exit %d%s (%d ms)", what, policy, r.exitCode(),
        r.out().contains("Nothing to do") ? ", nothing to do" : "", (System.nanoTime() - start) / 1_000_000));
    assertEquals(0, r.exitCode(), outcome);
    assertEquals(nothingToDo, r.out().contains("Nothing to do"), outcome);
    var live = spark.read().format("delta").load(table);
    assertEquals(rows, live.count(), outcome);
    assertEquals(0, live.where(org.apache.spark.sql.functions.to_json(org.apache.spark.sql.functions.struct("*"))
        .contains(CANARY)).count(), outcome);
    if (policy.equals("purge-history")) {
      assertEquals(List.of(), canaryFound(Path.of(table)), outcome);
    }
    return r;
  }

  /** A dptext append of five raw tickets from another input ({@code n}: ids 4000 + 10n …) into {@code table}. */
  void dptextAppend(String table, int n) throws Exception {
    Path other = tmp.resolve("other-input-" + n + ".jsonl");
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      lines.add("{\"id\": " + (4000 + 10 * n + i) + ", \"text\": \"" + CANARY + " another input's parcel " + i
          + " arrived late\"}");
    }
    Files.write(other, lines);
    long start = System.nanoTime();
    Run r = fx.sanitize(other, table, "--mode", "append");
    assertEquals(0, r.exitCode(), r.out() + r.err());
    outcomes.add(String.format("%-46s: (%d ms)", "dptext append " + n, (System.nanoTime() - start) / 1_000_000));
  }

  static String copyOfTemplate(String name) throws java.io.IOException {
    Path to = tmp.resolve(name);
    try (Stream<Path> files = Files.walk(template)) {
      for (Path f : files.collect(java.util.stream.Collectors.toList())) {
        Files.copy(f, to.resolve(template.relativize(f).toString()));
      }
    }
    return to.toString();
  }

  static String firstLine(String s) {
    String t = s.strip();
    int d = t.indexOf("dptext: ");
    t = d < 0 ? t : t.substring(d);
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl);
  }
}
