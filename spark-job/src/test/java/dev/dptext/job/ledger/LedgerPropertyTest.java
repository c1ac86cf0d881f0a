package dev.dptext.job.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.testing.SharedSpark;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger never under-counts: random sequences of releases of the same files through every spelling
 * (the folder, a partition folder, the file, a glob, a symbolic link, a hard link, a copy, {@code ..}),
 * in-place edits that keep or change size and modification time, the id column read as BIGINT, DOUBLE,
 * DECIMAL or STRING, two keys, two ε, {@code --where} subsets, stream micro-batches and their replays,
 * and crashes after the record; each release built by the job's own code from a real read (the source,
 * the file digests, the rows' ranges), and checked after every step against an oracle that knows which
 * rows were emitted with which randomness.
 *
 * <p>The invariants, for every source row after every step: (1) the ledger's ε ≥ its true ε under basic
 * composition, where a release adds ε to a row unless the row was already emitted with the same key,
 * settings, seed bytes and text (then the same output); (2) the ledger's ε ≤ the sum of the ε of the
 * source's releases (no release counts twice); (3) a release the budget lets through takes no row past it.
 * Fixed seeds: a failure is reproducible, and the test has no false failures.
 */
@Tag("integration")
class LedgerPropertyTest {
  static final int SEEDS = 3;
  static final int STEPS = 16;
  static final double BUDGET = 8;
  static final String[] TYPES = {"BIGINT", "DOUBLE", "STRING", "DECIMAL(20,0)"};

  @TempDir static Path tmp;
  static SparkSession spark;

  @BeforeAll
  static void setUp() {
    spark = SharedSpark.get();
  }

  /** What determines a row's output: key, settings, the bytes that seed it, its text. */
  record Emitted(String key, double epsilon, String seed, String text) {}

  @Test
  void noSequenceOfReleasesUnderCounts() throws IOException {
    long start = System.nanoTime();
    int releases = 0;
    for (int seed = 1; seed <= SEEDS; seed++) {
      releases += runSequence(seed);
    }
    System.out.printf("LedgerPropertyTest: %d sequences, %d releases, %.1f s%n", SEEDS, releases,
        (System.nanoTime() - start) / 1e9);
  }

  private int runSequence(int seed) throws IOException {
    Random random = new Random(seed);
    Path lake = Files.createDirectories(tmp.resolve("lake-" + seed));
    Path ds = lake.resolve("ds");
    // Sparse 64-bit ids, negative and extreme ones included; the two partitions hold different rows.
    List<Long> ids = new ArrayList<>(List.of(Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, -5L, 0L, 7L));
    while (ids.size() < 24) {
      ids.add(random.nextLong() >> random.nextInt(40));
    }
    computeKeys(ids);
    Map<String, Map<Long, String>> files = new LinkedHashMap<>();
    for (int p = 0; p < 2; p++) {
      Map<Long, String> rows = new LinkedHashMap<>();
      for (int i = p; i < ids.size(); i += 2) {
        // The text starts with the row's true id: the oracle's identity of the row, whatever type the id is
        // read with (a DOUBLE read of two close 64-bit ids can make them one value).
        rows.put(ids.get(i), "r" + ids.get(i) + " text " + (char) ('a' + random.nextInt(26)) + " g" + random.nextInt(2));
      }
      files.put("day=" + p + "/part-0.jsonl", rows);
      write(ds.resolve("day=" + p + "/part-0.jsonl"), rows);
    }
    Path link = Files.createSymbolicLink(lake.resolve("link"), ds);
    Path hard = Files.createLink(lake.resolve("hard.jsonl"), ds.resolve("day=0/part-0.jsonl"));
    Map<String, String> spellings = new LinkedHashMap<>(); // spelling -> the files (of ds) it reads
    spellings.put(ds.toString(), "*");
    spellings.put(ds.resolve("day=0").toString(), "day=0/part-0.jsonl");
    spellings.put(ds.resolve("day=1/part-0.jsonl").toString(), "day=1/part-0.jsonl");
    spellings.put(ds + "/day=1/../day=0/part-0.jsonl", "day=0/part-0.jsonl");
    spellings.put(ds + "/*/part-0.jsonl", "*");
    spellings.put(link.resolve("day=1").toString(), "day=1/part-0.jsonl");
    spellings.put(hard.toString(), "day=0/part-0.jsonl");
    spellings.put("file://" + ds, "*");

    List<Release> ledger = new ArrayList<>();
    Map<Long, Set<Emitted>> emitted = new HashMap<>();
    Map<Long, Set<String>> emittedIn = new HashMap<>(); // the id spaces each row was emitted in
    int batchId = 0;
    int count = 0;
    for (int step = 0; step < STEPS; step++) {
      int action = random.nextInt(10);
      if (action < 2) {
        // An edit in place: one row's text changes; half the time with the same size and modification time.
        String file = random.nextBoolean() ? "day=0/part-0.jsonl" : "day=1/part-0.jsonl";
        Map<Long, String> rows = files.get(file);
        Long id = new ArrayList<>(rows.keySet()).get(random.nextInt(rows.size()));
        String old = rows.get(id);
        rows.put(id, old.substring(0, old.length() - 4) + (char) ('a' + random.nextInt(26)) + old.substring(
            old.length() - 3));
        Path f = ds.resolve(file);
        FileTime mtime = Files.getLastModifiedTime(f);
        write(f, rows);
        if (random.nextBoolean()) {
          Files.setLastModifiedTime(f, mtime);
        }
        continue;
      }
      if (action == 2) {
        // A copy of a partition's file elsewhere: the same rows under another name.
        String file = random.nextBoolean() ? "day=0/part-0.jsonl" : "day=1/part-0.jsonl";
        Path copy = lake.resolve("copy-" + step + ".jsonl");
        Files.copy(ds.resolve(file), copy);
        spellings.put(copy.toString(), file);
        continue;
      }
      List<String> names = new ArrayList<>(spellings.keySet());
      String spelling = names.get(random.nextInt(names.size()));
      String type = TYPES[random.nextInt(TYPES.length)];
      String key = "k" + random.nextInt(2);
      double epsilon = 1 + random.nextInt(2);
      String where = random.nextInt(3) == 0 ? "text LIKE '%g1%'" : null;
      boolean stream = action == 3;
      boolean crash = random.nextInt(8) == 0;

      SourceSnapshot snapshot = SourceSnapshot.of(spark, spelling, DataFormat.JSON, Map.of());
      InputTable input = InputTable.read(spark, spelling, DataFormat.JSON, Map.of(), "id " + type + ", text STRING",
          where, "id", "text");
      Dataset<Row> accepted = input.accepted();
      String version;
      if (stream) {
        // A micro-batch; a replay (same batch id) half the time.
        int b = random.nextBoolean() && batchId > 0 ? batchId - 1 : batchId++;
        version = SourceSnapshot.microBatch("query-1", b, input.all(), snapshot.source());
      } else {
        snapshot = snapshot.read(input.all());
        version = snapshot.version();
      }
      ReleasedRows rows = ReleasedRows.of(accepted, "id");
      Release release = new Release("r" + seed + "-" + step, new Timestamp(1_000_000L + step), snapshot.source(), version,
          rows, "santext", "santext ε=" + epsilon, epsilon, "g", key, "column", "settings ε=" + epsilon + " where="
          + where, "out", "test");
      Spending.Outcome outcome = new Spending(snapshot.source(), ledger).with(release, BUDGET);
      if (outcome.refused()) {
        continue; // refused before its record: nothing emitted, nothing recorded
      }
      ledger.add(release);
      count++;
      if (!crash) {
        // What the run emitted, as the job would read it now: each row's seed bytes and text.
        for (Row r : accepted.select(functions.col("id"), functions.col("text")).collectAsList()) {
          Object value = r.get(0);
          long id = Long.parseLong(r.getString(1).substring(1, r.getString(1).indexOf(' ')));
          String seedBytes = value instanceof BigDecimal d ? d.stripTrailingZeros().toPlainString() : value.toString();
          emitted.computeIfAbsent(id, k -> new HashSet<>()).add(new Emitted(key, epsilon, seedBytes, r.getString(1)));
          emittedIn.computeIfAbsent(id, k -> new HashSet<>()).add(rows.space());
        }
        if (!stream && !snapshot.unchangedSince(spark)) {
          ledger.set(ledger.size() - 1, withUnknownSnapshot(release));
        }
      }
      check(seed, step, ledger, emitted, emittedIn);
    }
    return count;
  }

  /** Checks the invariants for every row emitted so far, in every id space it was emitted in. */
  private void check(int seed, int step, List<Release> ledger, Map<Long, Set<Emitted>> emitted,
      Map<Long, Set<String>> emittedIn) {
    Spending spending = new Spending(Release.FILES, ledger);
    double all = ledger.stream().mapToDouble(Release::epsilon).sum();
    List<Spending.Segment> segments = spending.segments();
    for (Map.Entry<Long, Set<Emitted>> e : emitted.entrySet()) {
      double truth = e.getValue().stream().mapToDouble(Emitted::epsilon).sum();
      assertTrue(truth <= BUDGET + 1e-9, "seed " + seed + " step " + step + ": the budget let a row reach " + truth);
      for (String space : emittedIn.get(e.getKey())) {
        long key = keyIn(space, e.getKey());
        double counted = segments.stream().filter(s -> s.space().equals(space) && s.lo() <= key && key <= s.hi())
            .mapToDouble(Spending.Segment::total).findFirst().orElse(0);
        assertTrue(counted >= truth - 1e-9, "seed " + seed + " step " + step + ": row " + e.getKey() + " in "
            + space + " is counted " + counted + " but spent " + truth);
        assertTrue(counted <= all + 1e-9, "seed " + seed + " step " + step + ": counted past every release");
      }
    }
  }

  private final Map<String, Long> keys = new HashMap<>();

  /** The row keys of {@code ids} in the space of each type, as the job computes them: one query per type. */
  private void computeKeys(List<Long> ids) {
    Dataset<Row> text = spark.createDataset(ids.stream().map(String::valueOf).toList(),
        org.apache.spark.sql.Encoders.STRING()).toDF("raw");
    for (String type : TYPES) {
      for (Row r : text.select(functions.col("raw"), ReleasedRows.key(functions.col("raw").cast(type),
          type.equals("BIGINT"))).collectAsList()) {
        keys.put(type + "#" + r.getString(0), r.getLong(1));
      }
    }
  }

  /** The row key of id {@code id} in {@code space}. */
  private long keyIn(String space, long id) {
    String type = space.contains("integral") ? "BIGINT" : space.contains("double") ? "DOUBLE"
        : space.contains("decimal") ? "DECIMAL(20,0)" : "STRING";
    return keys.get(type + "#" + id);
  }

  private static Release withUnknownSnapshot(Release r) {
    return new Release(r.releaseId(), r.recordedAt(), r.source(), null, r.rows(), r.mechanism(), r.parameters(),
        r.epsilon(), r.guarantee(), r.keyFingerprint(), r.randomness(), r.settingsFingerprint(), r.output(),
        r.dptextVersion());
  }

  private static void write(Path file, Map<Long, String> rows) throws IOException {
    Files.createDirectories(file.getParent());
    StringBuilder b = new StringBuilder();
    rows.forEach((id, text) -> b.append("{\"id\": ").append(id).append(", \"text\": \"").append(text).append("\"}\n"));
    Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
  }

  @Test
  void everyReleasedIdLiesInARecordedRangeWhateverTheDistribution() {
    Random random = new Random(7);
    Map<String, List<Long>> distributions = new LinkedHashMap<>();
    List<Long> sparse = new ArrayList<>();
    for (int i = 0; i < 150_000; i++) {
      sparse.add(random.nextLong());
    }
    distributions.put("random 64-bit, 150,000", sparse);
    List<Long> clustered = new ArrayList<>();
    for (int c = 0; c < 300; c++) {
      long base = random.nextLong() >> 8;
      for (int i = 0; i < 100; i++) {
        clustered.add(base + random.nextInt(5_000));
      }
    }
    distributions.put("clustered", clustered);
    distributions.put("extremes and negatives", List.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L, 1L, Long.MIN_VALUE + 1));
    distributions.put("all equal", java.util.Collections.nCopies(1000, 42L));
    List<Long> timeBased = new ArrayList<>();
    for (int i = 0; i < 120_000; i++) {
      timeBased.add((1_700_000_000_000L + i * 37L) << 20 | random.nextInt(1 << 20));
    }
    distributions.put("time-based (snowflake-like), 120,000", timeBased);
    for (Map.Entry<String, List<Long>> d : distributions.entrySet()) {
      Dataset<Row> df = spark.createDataset(d.getValue(), org.apache.spark.sql.Encoders.LONG()).toDF("id");
      ReleasedRows rows = ReleasedRows.of(df, "id");
      assertEquals(d.getValue().size(), rows.rows(), d.getKey());
      assertTrue(rows.ranges().size() <= ReleasedRows.MAX_RANGES, d.getKey() + ": bounded");
      List<ReleasedRows.Range> ranges = rows.ranges();
      for (long id : d.getValue()) {
        int lo = 0;
        int hi = ranges.size() - 1;
        boolean in = false;
        while (lo <= hi) { // the ranges are sorted and disjoint
          int mid = (lo + hi) >>> 1;
          ReleasedRows.Range r = ranges.get(mid);
          if (id < r.lo()) {
            hi = mid - 1;
          } else if (id > r.hi()) {
            lo = mid + 1;
          } else {
            in = true;
            break;
          }
        }
        assertTrue(in, d.getKey() + ": id " + id + " lies in no recorded range");
      }
    }
    // Null-heavy: rows without an id have no key (the job refuses them before sanitizing), the others do.
    List<Row> nullHeavy = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      nullHeavy.add(org.apache.spark.sql.RowFactory.create(i % 10 == 0 ? (Object) (long) i : null));
    }
    Dataset<Row> df = spark.createDataFrame(nullHeavy, new org.apache.spark.sql.types.StructType().add("id",
        org.apache.spark.sql.types.DataTypes.LongType));
    ReleasedRows rows = ReleasedRows.of(df, "id");
    assertEquals(5000, rows.rows());
    for (int i = 0; i < 5000; i += 10) {
      long id = i;
      assertTrue(rows.ranges().stream().anyMatch(r -> r.lo() <= id && id <= r.hi()), "null-heavy: id " + id);
    }
  }
}
