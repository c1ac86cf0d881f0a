package dev.dptext.job.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.random.SecretKey;
import java.io.IOException;
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
 * The ledger never under-counts: random sequences of releases of the same rows through every spelling
 * (the folder, a partition folder, the file, a glob, a symbolic link, a hard link, a copy, {@code ..}) and
 * every way of reading them (JSON, or a headerless CSV copy with its text columns in either schema order and
 * with or without an input option that changes its values; the id column read as BIGINT, DOUBLE, DECIMAL or
 * STRING, or a TIMESTAMP id under three JVM time zones; either text column), in-place edits that keep or
 * change size and modification time, two keys, two ε, {@code --where} subsets, SanText+ over the private
 * corpus, stream micro-batches and their replays, and crashes after the record; two thirds of the steps
 * replay the previous command with one of these changed. Each release is built by the job's own code from a
 * real read (the source, the file digests, the rows' ranges, the content the check pass sums), and checked
 * after every step against an oracle that knows which rows were emitted with which key, seed bytes, text and
 * corpus.
 *
 * <p>The invariants, for every source row after every step: (1) the ledger's ε ≥ its true ε under basic
 * composition, where a release adds ε to a row unless the row was already emitted with the same key,
 * settings, seed bytes and text (then the same output); (2) the ledger's ε ≤ the sum of the ε of the
 * source's releases (no release counts twice); (3) a release the budget lets through takes no row past it;
 * (4) releases the ledger takes for one never emit two different outputs for a row (the sums of (1) can hide
 * that behind an over-count elsewhere; this cannot). Fixed seeds: a failure is reproducible, and the test
 * has no false failures.
 */
@Tag("integration")
class LedgerPropertyTest {
  // 2 × 14 (was 3 × 16, 28–42 s of the suite): the old repeat key still fails at seed 1, step 10.
  static final int SEEDS = 2;
  static final int STEPS = 14;
  static final double BUDGET = 8;
  static final String[] TYPES = {"BIGINT", "DOUBLE", "STRING", "DECIMAL(20,0)"};

  @TempDir static Path tmp;
  static SparkSession spark;

  @BeforeAll
  static void setUp() {
    spark = SharedSpark.get();
  }

  /**
   * What determines a row's output: key, settings, the bytes that seed it, its text, and for SanText+ over
   * the private corpus the corpus (the texts of the release's rows).
   */
  record Emitted(String key, double epsilon, String seed, String text, String corpus) {}

  /** The two keys of the sequences. */
  static final Map<String, SecretKey> KEYS = Map.of("k0", SecretKey.parse("00".repeat(32), "test key k0"),
      "k1", SecretKey.parse("11".repeat(32), "test key k1"));

  /** Time zones a scheduler's JVMs may run in: TIMESTAMP ids must seed and count alike in each. */
  static final String[] ZONES = {"UTC", "Asia/Tokyo", "America/Los_Angeles"};

  @Test
  void noSequenceOfReleasesUnderCounts() throws IOException {
    long start = System.nanoTime();
    int releases = 0;
    java.util.TimeZone zone = java.util.TimeZone.getDefault();
    try {
      for (int seed = 1; seed <= SEEDS; seed++) {
        releases += runSequence(seed);
      }
    } finally {
      java.util.TimeZone.setDefault(zone);
    }
    System.out.printf("LedgerPropertyTest: %d sequences, %d releases, %.1f s%n", SEEDS, releases,
        (System.nanoTime() - start) / 1e9);
  }

  /** One row of the data set: its true id, a TIMESTAMP id, and two text columns. */
  record Source(long id, String ts, String text, String note) {}

  private int runSequence(int seed) throws IOException {
    Random random = new Random(seed);
    Path lake = Files.createDirectories(tmp.resolve("lake-" + seed));
    Path ds = lake.resolve("ds");
    Path csv = lake.resolve("csv");
    // Sparse 64-bit ids, negative and extreme ones included; the two partitions hold different rows.
    List<Long> ids = new ArrayList<>(List.of(Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, -5L, 0L, 7L));
    while (ids.size() < 24) {
      ids.add(random.nextLong() >> random.nextInt(40));
    }
    Map<String, Map<Long, Source>> files = new LinkedHashMap<>();
    for (int p = 0; p < 2; p++) {
      Map<Long, Source> rows = new LinkedHashMap<>();
      for (int i = p; i < ids.size(); i += 2) {
        // Each text starts with the row's true id: the oracle's identity of the row, whatever column, type or
        // schema order it is read with (a DOUBLE read of two close 64-bit ids can make them one value).
        long id = ids.get(i);
        String g = " g" + random.nextInt(2);
        rows.put(id, new Source(id, java.time.Instant.ofEpochSecond(1_700_000_000L + i * 3_600L, i * 1_000_000L).toString(),
            "r" + id + " text " + (char) ('a' + random.nextInt(26)) + g,
            "r" + id + " note " + (char) ('a' + random.nextInt(26)) + g));
      }
      files.put("day=" + p, rows);
      write(ds, csv, "day=" + p, rows);
    }
    Path link = Files.createSymbolicLink(lake.resolve("link"), ds);
    Path hard = Files.createLink(lake.resolve("hard.jsonl"), ds.resolve("day=0/part-0.jsonl"));
    Map<String, DataFormat> spellings = new LinkedHashMap<>(); // spelling -> its format
    spellings.put(ds.toString(), DataFormat.JSON);
    spellings.put(ds.resolve("day=0").toString(), DataFormat.JSON);
    spellings.put(ds.resolve("day=1/part-0.jsonl").toString(), DataFormat.JSON);
    spellings.put(ds + "/day=1/../day=0/part-0.jsonl", DataFormat.JSON);
    spellings.put(ds + "/*/part-0.jsonl", DataFormat.JSON);
    spellings.put(link.resolve("day=1").toString(), DataFormat.JSON);
    spellings.put(hard.toString(), DataFormat.JSON);
    spellings.put("file://" + ds, DataFormat.JSON);
    // The same rows as headerless CSV (id, ts, text, note), their text fields after a space.
    spellings.put(csv.toString(), DataFormat.CSV);
    spellings.put(csv.resolve("day=1/part-0.csv").toString(), DataFormat.CSV);

    List<Release> ledger = new ArrayList<>();
    Map<Long, Set<Emitted>> emitted = new HashMap<>();
    Map<Long, Map<String, Long>> emittedIn = new HashMap<>(); // the id spaces each row was emitted in, its key there
    int batchId = 0;
    int count = 0;
    Params last = null;
    Map<String, Map<Long, Emitted>> identities = new HashMap<>(); // per repeat key, what its releases emit
    for (int step = 0; step < STEPS; step++) {
      int action = random.nextInt(10);
      if (action < 2) {
        // An edit in place: one row's texts change; half the time with the same size and modification time.
        String part = random.nextBoolean() ? "day=0" : "day=1";
        Map<Long, Source> rows = files.get(part);
        Long id = new ArrayList<>(rows.keySet()).get(random.nextInt(rows.size()));
        Source old = rows.get(id);
        rows.put(id, new Source(id, old.ts(), edited(old.text(), random), edited(old.note(), random)));
        Path f = ds.resolve(part + "/part-0.jsonl");
        Path c = csv.resolve(part + "/part-0.csv");
        FileTime mtime = Files.getLastModifiedTime(f);
        FileTime csvTime = Files.getLastModifiedTime(c);
        write(ds, csv, part, rows);
        if (random.nextBoolean()) {
          Files.setLastModifiedTime(f, mtime);
          Files.setLastModifiedTime(c, csvTime);
        }
        continue;
      }
      if (action == 2) {
        // A copy of a partition's file elsewhere: the same rows under another name.
        String part = random.nextBoolean() ? "day=0" : "day=1";
        Path copy = lake.resolve("copy-" + step + ".jsonl");
        Files.copy(ds.resolve(part + "/part-0.jsonl"), copy);
        spellings.put(copy.toString(), DataFormat.JSON);
        continue;
      }
      // Half the time the previous release's command again with one thing changed (as a user hunting for an
      // under-count would), else a command drawn afresh.
      Params p = last != null && random.nextInt(3) > 0 ? last.varied(seed, random, spellings)
          : Params.drawn(seed, random, spellings);
      last = p;
      String spelling = p.spelling();
      DataFormat format = spellings.get(spelling);
      String idColumn = p.byTimestamp() ? "ts" : "id";
      String textColumn = p.textColumn();
      String schema = "id " + (p.byTimestamp() ? "BIGINT" : p.type()) + ", ts " + (p.byTimestamp() ? "TIMESTAMP"
          : "STRING") + (p.swapped() && format == DataFormat.CSV ? ", note STRING, text STRING"
          : ", text STRING, note STRING");
      Map<String, String> options = format == DataFormat.CSV && p.trimmed()
          ? Map.of("ignoreLeadingWhiteSpace", "true") : Map.of();
      java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone(p.zone()));
      String key = p.key();
      double epsilon = p.epsilon();
      String where = p.where() ? textColumn + " LIKE '%g1%'" : null;
      boolean privateCorpus = p.privateCorpus(); // SanText+'s ranks counted over the rows it releases
      boolean stream = action == 3;
      boolean crash = random.nextInt(8) == 0;

      SourceSnapshot snapshot = SourceSnapshot.of(spark, spelling, format, options);
      InputTable input = InputTable.read(spark, spelling, format, options, schema, where, idColumn, textColumn);
      Dataset<Row> accepted = input.accepted();
      InputTable.Counts counts = input.count(true); // the job's own pass: what the release sanitizes
      String version;
      if (stream) {
        // A micro-batch; a replay (same batch id) half the time.
        int b = random.nextBoolean() && batchId > 0 ? batchId - 1 : batchId++;
        version = SourceSnapshot.microBatch("query-1", b, input.all(), snapshot.source());
      } else {
        snapshot = snapshot.read(input.all());
        version = snapshot.version();
      }
      ReleasedRows rows = ReleasedRows.of(accepted, idColumn);
      SecretKey secret = KEYS.get(key);
      // The settings as the job fingerprints them: ε, the word frequencies' source and the columns; not --where.
      String settings = "settings ε=" + epsilon + " frequencies=" + (privateCorpus ? "private-corpus" : "public")
          + " text=" + textColumn;
      String content = ContentKey.of(secret::tag, null, null).fingerprint(counts.content());
      Release release = new Release("r" + seed + "-" + step, new Timestamp(1_000_000L + step), snapshot.source(),
          version, rows, "santext", "santext ε=" + epsilon, epsilon, "g", secret.fingerprint(), "column", settings,
          content, "out", "test");
      Spending.Outcome outcome = new Spending(snapshot.source(), ledger).with(release, BUDGET);
      if (outcome.refused()) {
        continue; // refused before its record: nothing emitted, nothing recorded
      }
      ledger.add(release);
      count++;
      // What the run emits (a crashed one would have), as the job reads it now: each row's seed bytes and text.
      List<Row> read = accepted.select(functions.col(idColumn), functions.col(textColumn),
          ReleasedRows.key(functions.col(idColumn), ReleasedRows.idForm(accepted.schema().apply(idColumn).dataType())
              .equals(ReleasedRows.INTEGRAL_FORM)).as("k")).collectAsList();
      String corpus = privateCorpus ? read.stream().map(r -> r.getString(1)).sorted().toList().toString() : "public";
      Map<Long, Emitted> emits = new HashMap<>();
      Map<Long, Long> keyOf = new HashMap<>();
      for (Row r : read) {
        String seedBytes = new String(dev.dptext.sanitizer.Sanitizer.idBytes(r.get(0)), StandardCharsets.UTF_8);
        String text = r.getString(1);
        long id = Long.parseLong(text.strip().substring(1, text.strip().indexOf(' ')));
        emits.put(id, new Emitted(key, epsilon, seedBytes, text, corpus));
        keyOf.put(id, r.getLong(2));
      }
      if (!crash && !stream && !snapshot.unchangedSince(spark)) {
        release = withUnknownSnapshot(release);
        ledger.set(ledger.size() - 1, release);
      }
      // Invariant (4): releases the ledger counts as one never emit two outputs for a row. (This is what
      // the sums can hide: a crash or another space's release over-counts the row elsewhere.)
      Map<Long, Emitted> identity = identities.computeIfAbsent(release.repeatKey(), k -> new HashMap<>());
      for (Map.Entry<Long, Emitted> e : emits.entrySet()) {
        Emitted before = identity.putIfAbsent(e.getKey(), e.getValue());
        assertTrue(before == null || before.equals(e.getValue()), "seed " + seed + " step " + step + ": release "
            + release.releaseId() + " is taken for a repeat, yet row " + e.getKey() + " is emitted otherwise: "
            + before + " then " + e.getValue());
      }
      if (!crash) {
        for (Map.Entry<Long, Emitted> e : emits.entrySet()) {
          emitted.computeIfAbsent(e.getKey(), k -> new HashSet<>()).add(e.getValue());
          emittedIn.computeIfAbsent(e.getKey(), k -> new HashMap<>()).put(rows.space(), keyOf.get(e.getKey()));
        }
      }
      check(seed, step, ledger, emitted, emittedIn);
    }
    return count;
  }

  /** One release's command: how it reads, keys and seeds. */
  record Params(String spelling, boolean byTimestamp, String type, String textColumn, boolean swapped,
      boolean trimmed, String zone, String key, double epsilon, boolean where, boolean privateCorpus) {
    static Params drawn(int seed, Random random, Map<String, DataFormat> spellings) {
      // Half the releases read the CSV copy, whose reading options and schema order change its values.
      boolean csv = random.nextBoolean();
      List<String> names = spellings.keySet().stream().filter(n -> (spellings.get(n) == DataFormat.CSV) == csv)
          .toList();
      // Each sequence keeps mostly to one id space (another space's release counts against every row, which
      // would hide an under-count in this one): BIGINT ids, or for seed 3 TIMESTAMP ids.
      boolean other = random.nextInt(10) == 0;
      return new Params(names.get(random.nextInt(names.size())), (seed == 3) != other,
          other ? TYPES[random.nextInt(TYPES.length)] : "BIGINT", random.nextInt(3) == 0 ? "note" : "text",
          random.nextBoolean(),
          random.nextBoolean(), ZONES[random.nextInt(ZONES.length)], "k" + random.nextInt(2), 1 + random.nextInt(2),
          random.nextInt(3) == 0, random.nextInt(4) == 0);
    }

    /** This command with one of the ways it reads, keys or seeds changed. */
    Params varied(int seed, Random random, Map<String, DataFormat> spellings) {
      Params d = drawn(seed, random, spellings);
      return switch (random.nextInt(7)) {
        case 0 -> new Params(spelling, byTimestamp, type, textColumn, !swapped, trimmed, zone, key, epsilon, where,
            privateCorpus);
        case 1 -> new Params(spelling, byTimestamp, type, textColumn, swapped, !trimmed, zone, key, epsilon, where,
            privateCorpus);
        case 2 -> new Params(spelling, byTimestamp, type, textColumn.equals("text") ? "note" : "text", swapped, trimmed,
            zone, key, epsilon, where, privateCorpus);
        case 3 -> new Params(spelling, byTimestamp, type, textColumn, swapped, trimmed, d.zone(), key, epsilon, where,
            privateCorpus);
        case 4 -> new Params(spelling, byTimestamp, type, textColumn, swapped, trimmed, zone, key, epsilon, !where,
            privateCorpus);
        case 5 -> new Params(spelling, byTimestamp, type, textColumn, swapped, trimmed, zone, key, epsilon, where,
            !privateCorpus);
        default -> new Params(d.spelling(), byTimestamp, type, textColumn, swapped, trimmed, zone, key, epsilon, where,
            privateCorpus);
      };
    }
  }

  private static String edited(String text, Random random) {
    return text.substring(0, text.length() - 4) + (char) ('a' + random.nextInt(26)) + text.substring(text.length() - 3);
  }

  /** Checks the invariants for every row emitted so far, in every id space it was emitted in. */
  private void check(int seed, int step, List<Release> ledger, Map<Long, Set<Emitted>> emitted,
      Map<Long, Map<String, Long>> emittedIn) {
    Spending spending = new Spending(Release.FILES, ledger);
    double all = ledger.stream().mapToDouble(Release::epsilon).sum();
    List<Spending.Segment> segments = spending.segments();
    for (Map.Entry<Long, Set<Emitted>> e : emitted.entrySet()) {
      double truth = e.getValue().stream().mapToDouble(Emitted::epsilon).sum();
      assertTrue(truth <= BUDGET + 1e-9, "seed " + seed + " step " + step + ": the budget let a row reach " + truth);
      for (Map.Entry<String, Long> in : emittedIn.get(e.getKey()).entrySet()) {
        String space = in.getKey();
        long key = in.getValue();
        double counted = segments.stream().filter(s -> s.space().equals(space) && s.lo() <= key && key <= s.hi())
            .mapToDouble(Spending.Segment::total).findFirst().orElse(0);
        assertTrue(counted >= truth - 1e-9, "seed " + seed + " step " + step + ": row " + e.getKey() + " in "
            + space + " is counted " + counted + " but spent " + truth);
        assertTrue(counted <= all + 1e-9, "seed " + seed + " step " + step + ": counted past every release");
      }
    }
  }

  private static Release withUnknownSnapshot(Release r) {
    return new Release(r.releaseId(), r.recordedAt(), r.source(), null, r.rows(), r.mechanism(), r.parameters(),
        r.epsilon(), r.guarantee(), r.keyFingerprint(), r.randomness(), r.settingsFingerprint(), r.contentFingerprint(),
        r.output(), r.dptextVersion());
  }

  /** The partition {@code part} as JSON lines under {@code json} and as headerless CSV under {@code csv}. */
  private static void write(Path json, Path csv, String part, Map<Long, Source> rows) throws IOException {
    StringBuilder j = new StringBuilder();
    StringBuilder c = new StringBuilder();
    for (Source r : rows.values()) {
      j.append("{\"id\": ").append(r.id()).append(", \"ts\": \"").append(r.ts()).append("\", \"text\": \"")
          .append(r.text()).append("\", \"note\": \"").append(r.note()).append("\"}\n");
      c.append(r.id()).append(',').append(r.ts()).append(", ").append(r.text()).append(", ").append(r.note())
          .append('\n');
    }
    write(json.resolve(part + "/part-0.jsonl"), j.toString());
    write(csv.resolve(part + "/part-0.csv"), c.toString());
  }

  private static void write(Path file, String content) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, StandardCharsets.UTF_8);
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
