package dev.dptext.job.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.ledger.ReleasedRows.Range;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The ledger's accounting without Spark: ranges, repeats, overlaps, releases without ids, the budget;
 * and the sweep against a brute-force count over every id.
 */
class SpendingTest {
  static final String SOURCE = "delta:t1";
  private int clock;

  Release release(String key, String version, double epsilon, List<Range> ranges) {
    ReleasedRows rows = ranges == null ? new ReleasedRows(null, ReleasedRows.Kind.NONE, null, null, true, 100)
        : new ReleasedRows("id", ReleasedRows.Kind.INTEGRAL, "integral", ReleasedRows.merge(ranges), true,
            ranges.stream().mapToLong(Range::size).sum());
    return new Release("r" + (++clock), new Timestamp(1_000_000L + clock), SOURCE, version, rows, "santext",
        "santext ε=" + epsilon, epsilon, "g", key, key == null ? "fresh" : "column", "settings-" + epsilon,
        "content-" + version, "out", "test");
  }

  static List<Range> ids(long lo, long hi) {
    return List.of(new Range(lo, hi));
  }

  @Test
  void aRepeatWithTheSameKeySettingsAndSnapshotAddsNothing() {
    Release a = release("k1", "v3", 3, ids(0, 29));
    Release b = release("k1", "v3", 3, ids(0, 29));
    Spending s = new Spending(SOURCE, List.of(a, b));
    assertEquals(3.0, s.maximum());
    assertEquals(0, s.added().get(1).keys());
    assertEquals(0.0, s.added().get(1).epsilon());
    assertEquals(List.of("r1"), s.added().get(1).sharesRowsWith());
  }

  @Test
  void anotherKeyAnotherSnapshotOrFreshRandomnessAddsUp() {
    List<Release> r = List.of(release("k1", "v3", 3, ids(0, 29)), release("k2", "v3", 3, ids(0, 29)),
        release("k1", "v4", 2, ids(0, 29)), release(null, "v3", 1, ids(0, 29)), release(null, "v3", 1, ids(0, 29)));
    Spending s = new Spending(SOURCE, r);
    assertEquals(10.0, s.maximum(), 1e-12);
    assertEquals(Map.of(10.0, 30L), s.distribution());
  }

  @Test
  void overlappingRangesAddOnlyWhereTheyOverlap() {
    Spending s = new Spending(SOURCE, List.of(release("k1", "v1", 3, ids(0, 19)), release("k2", "v1", 3,
        ids(10, 29))));
    assertEquals(Map.of(3.0, 20L, 6.0, 10L), s.distribution());
    assertEquals(6.0, s.maximum());
    assertEquals(20, s.added().get(1).keys());
  }

  @Test
  void aRepeatOverPartOfTheRowsChargesOnlyTheNewOnes() {
    Spending s = new Spending(SOURCE, List.of(release("k1", "v1", 3, ids(0, 19)), release("k1", "v1", 3,
        ids(10, 29))));
    assertEquals(Map.of(3.0, 30L), s.distribution());
    assertEquals(10, s.added().get(1).keys());
  }

  @Test
  void aReleaseWithoutIdsCountsAgainstEveryRow() {
    Spending s = new Spending(SOURCE, List.of(release("k1", "v1", 3, ids(0, 9)), release("k1", "v1", 2, null)));
    assertEquals(Map.of(5.0, 10L), s.distribution());
    Spending none = new Spending(SOURCE, List.of(release("k1", "v1", 2, null), release("k2", "v1", 2, null)));
    assertEquals(4.0, none.maximum());
  }

  @Test
  void theBudgetRefusesOnlyTheRowsItWouldTakePastIt() {
    Spending s = new Spending(SOURCE, List.of(release("k1", "v1", 3, ids(0, 19))));
    Spending.Outcome ok = s.with(release("k2", "v1", 2, ids(10, 29)), 5.0);
    assertFalse(ok.refused());
    assertEquals(5.0, ok.maximumAfter());
    Spending.Outcome over = s.with(release("k2", "v1", 3, ids(10, 29)), 5.0);
    assertTrue(over.refused());
    assertEquals(10, over.keysOverBudget());
    assertEquals(List.of("r1"), over.releasesInvolved());
    Spending.Outcome repeat = s.with(release("k1", "v1", 3, ids(0, 19)), 3.0);
    assertFalse(repeat.refused(), "a repeat spends nothing");
    assertEquals(0, repeat.keysCharged());
    // 0.1 + 0.2 is not past 0.3.
    Spending tiny = new Spending(SOURCE, List.of(release("k1", "v1", 0.1, ids(0, 0))));
    assertFalse(tiny.with(release("k2", "v1", 0.2, ids(0, 0)), 0.3).refused());
  }

  /**
   * A release keyed by another id column counts against every row of this one, but the budget refuses only
   * the candidate's rows that its totals take past the budget, not every row of the source.
   */
  @Test
  void anotherIdSpaceCountsAgainstEveryRowButRefusesOnlyRowsPastTheBudget() {
    Release other = new Release("o", new Timestamp(1), SOURCE, "v1", new ReleasedRows("other_id",
        ReleasedRows.Kind.INTEGRAL, "integral", ids(0, 99), true, 100), "santext", "santext", 1, "g", "k9", "column", "s1", "c1",
        "out", "test");
    Spending s = new Spending(SOURCE, List.of(release("k1", "v1", 3, ids(0, 9)), other));
    Spending.Outcome hot = s.with(release("k2", "v1", 1, ids(0, 9)), 4.5);
    assertTrue(hot.refused());
    assertEquals(10, hot.keysOverBudget());
    assertEquals(List.of("r1", "o"), hot.releasesInvolved());
    Spending.Outcome cold = s.with(release("k2", "v1", 1, ids(100, 109)), 4.5);
    assertFalse(cold.refused(), "ids 100-109 reach 1 + 1 (the other id space), not 5");
    assertEquals(5.0, cold.maximumAfter(), 1e-12);
  }

  @Test
  void theSweepAgreesWithCountingEveryId() {
    Random random = new Random(7);
    List<Release> releases = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      List<Range> ranges = new ArrayList<>();
      for (int j = 0; j < 1 + random.nextInt(3); j++) {
        long lo = random.nextInt(500);
        ranges.add(new Range(lo, lo + random.nextInt(100)));
      }
      releases.add(release("k" + random.nextInt(4), "v" + random.nextInt(2), 1 + random.nextInt(3), ranges));
    }
    Spending s = new Spending(SOURCE, releases);
    double[] brute = new double[700];
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Release r : releases) {
      for (long id = 0; id < brute.length; id++) {
        for (Range g : r.rows().ranges()) {
          if (g.lo() <= id && id <= g.hi() && seen.add(r.repeatKey() + "/" + id)) {
            brute[(int) id] += r.epsilon();
          }
        }
      }
    }
    java.util.TreeMap<Double, Long> expected = new java.util.TreeMap<>();
    double max = 0;
    for (double b : brute) {
      if (b > 0) {
        expected.merge(b, 1L, Long::sum);
        max = Math.max(max, b);
      }
    }
    assertEquals(expected, s.distribution());
    assertEquals(max, s.maximum(), 1e-9);
  }

  @Test
  void rangesMergeAndCoarsenIntoSupersets() {
    assertEquals(List.of(new Range(0, 9), new Range(20, 20)),
        ReleasedRows.merge(List.of(new Range(5, 9), new Range(0, 4), new Range(20, 20), new Range(3, 6))));
    List<Range> many = List.of(new Range(0, 0), new Range(2, 2), new Range(10, 10), new Range(11 + 100, 120),
        new Range(122, 122));
    List<Range> three = ReleasedRows.coarsen(many, 3);
    assertEquals(List.of(new Range(0, 2), new Range(10, 10), new Range(111, 122)), three);
    for (Range r : many) {
      assertTrue(three.stream().anyMatch(c -> c.lo() <= r.lo() && r.hi() <= c.hi()), "covered: " + r);
    }
  }
}
