package dev.dptext.job.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.ledger.ReleasedRows.Range;
import dev.dptext.job.testing.SharedSpark;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * {@link LedgerSql}, the accounting SQL users run, against {@link Spending}: per row key, the same total, on
 * random ledgers with repeats, overlaps, two id spaces, releases without ids and withdrawn releases.
 */
class LedgerSqlTest {
  static final int IDS = 400;

  @Test
  void theSqlAgreesWithTheJobsAccountingOnRandomLedgers() {
    SparkSession spark = SharedSpark.get();
    for (int seed = 1; seed <= 4; seed++) {
      Random random = new Random(seed);
      List<Row> rows = new ArrayList<>();
      List<Release> live = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        // Two Delta tables, and file sources as older ledgers recorded them (by location): all one source now.
        String source = random.nextInt(3) == 0 ? "file:/data/part-" + random.nextInt(3) : "delta:s" + random.nextInt(2);
        ReleasedRows released;
        int kind = random.nextInt(10);
        if (kind == 0) {
          released = new ReleasedRows(null, ReleasedRows.Kind.NONE, null, null, true, 50);
        } else {
          List<Range> ranges = new ArrayList<>();
          for (int j = 0; j < 1 + random.nextInt(3); j++) {
            long lo = random.nextInt(IDS - 60);
            ranges.add(new Range(lo, lo + random.nextInt(60)));
          }
          // The same column read with another type is another id space, and so is another column.
          released = kind == 2 ? new ReleasedRows("id", ReleasedRows.Kind.HASHED, "double", ReleasedRows.merge(ranges),
              true, 10) : new ReleasedRows(kind == 1 ? "other_id" : "id", ReleasedRows.Kind.INTEGRAL, "integral",
              ReleasedRows.merge(ranges), true, 10);
        }
        String key = random.nextInt(5) == 0 ? null : "k" + random.nextInt(3);
        double epsilon = 1 + random.nextInt(3) + (random.nextBoolean() ? 0.1 : 0);
        // The settings' fingerprint covers ε, as the job's does.
        Release r = new Release("r" + i, new Timestamp(1_000_000L + i), source, "v" + random.nextInt(2), released,
            "santext", "santext", epsilon, "g", key, key == null ? "fresh" : "column", "s" + epsilon,
            random.nextInt(6) == 0 ? null : "c" + random.nextInt(2), "out", "test");
        rows.add(r.intended());
        boolean changed = random.nextInt(8) == 0;
        if (changed) {
          rows.add(Release.event(r.releaseId(), Release.SNAPSHOT_CHANGED, "out", null));
        }
        if (random.nextInt(6) == 0) {
          rows.add(Release.event(r.releaseId(), Release.WITHDRAWN, "out", null));
        } else {
          live.add(Release.of(withSchema(r.intended()), changed)); // as the job reads it back
          if (random.nextBoolean()) {
            rows.add(Release.event(r.releaseId(), Release.COMMITTED, "out", 3L));
          }
        }
      }
      spark.createDataFrame(rows, Release.SCHEMA).createOrReplaceTempView("ledger_under_test");
      List<Row> segments = spark.sql(LedgerSql.segments("ledger_under_test")).collectAsList();
      for (String source : List.of("delta:s0", "delta:s1", Release.FILES)) {
        Spending java = new Spending(source, live);
        TreeMap<String, Double> expected = perKey(java.segments().stream().map(s -> new Object[] {s.space(), s.lo(),
            s.hi(), s.total()}).toList());
        TreeMap<String, Double> actual = perKey(segments.stream().filter(r -> r.getString(0).equals(source)
            && !r.isNullAt(1)).map(r -> new Object[] {r.getString(1), r.getLong(2), r.getLong(3), r.getDouble(4)})
            .toList());
        assertEquals(expected.keySet(), actual.keySet(), "seed " + seed + " " + source);
        for (var e : expected.entrySet()) {
          assertEquals(e.getValue(), actual.get(e.getKey()), 1e-9, "seed " + seed + " " + source + " " + e.getKey());
        }
        double sqlMax = segments.stream().filter(r -> r.getString(0).equals(source)).mapToDouble(r -> r.getDouble(4))
            .max().orElse(0);
        assertEquals(java.maximum(), sqlMax, 1e-9, "seed " + seed + " " + source);
      }
    }
    // A source released only without ids: one row, the sum.
    Release a = new Release("a", new Timestamp(1), "src", "v1", new ReleasedRows(null, ReleasedRows.Kind.NONE, null, null,
        true, 5), "santext", "santext", 2, "g", "k", "content-hash", "s", "c", "out", "test");
    Release b = new Release("b", new Timestamp(2), "src", "v1", new ReleasedRows(null, ReleasedRows.Kind.NONE, null, null,
        true, 5), "santext", "santext", 2, "g", null, "fresh", "s", null, "out", "test");
    spark.createDataFrame(List.of(a.intended(), b.intended()), Release.SCHEMA).createOrReplaceTempView("ledger_none");
    List<Row> none = spark.sql(LedgerSql.segments("ledger_none")).collectAsList();
    assertEquals(1, none.size());
    assertTrue(none.get(0).isNullAt(1));
    assertEquals(4.0, none.get(0).getDouble(4));
  }

  /** {@code r} as a row read from the ledger (fields by name). */
  static Row withSchema(Row r) {
    Object[] values = new Object[r.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = r.get(i) instanceof List<?> l ? scala.jdk.javaapi.CollectionConverters.asScala(l).toSeq() : r.get(i);
    }
    return new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(values, Release.SCHEMA);
  }

  /** Per id space and key in [0, IDS + 100): the total of the segment holding it. */
  static TreeMap<String, Double> perKey(List<Object[]> segments) {
    TreeMap<String, Double> out = new TreeMap<>();
    for (Object[] s : segments) {
      long lo = (Long) s[1];
      long hi = Math.min((Long) s[2], IDS + 100);
      for (long k = lo; k <= hi; k++) {
        Double previous = out.put(s[0] + "#" + k, (Double) s[3]);
        assertEquals(null, previous, "segments overlap at " + s[0] + " " + k);
      }
    }
    return out;
  }
}
