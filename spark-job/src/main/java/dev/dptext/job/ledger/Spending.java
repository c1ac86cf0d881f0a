package dev.dptext.job.ledger;

import dev.dptext.job.ledger.ReleasedRows.Range;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ε each row of one source has spent, under basic composition: a row's total is the sum of the ε of
 * the distinct releases that cover it, a release that repeats an earlier one ({@link Release#repeatKey})
 * counting once. The guarantees compose as ε·d adds up: k releases at ε_1…ε_k give a row the bound
 * exp((ε_1+…+ε_k)·d) per token when they share a metric; with different metrics the sum of the ε is a
 * bookkeeping figure, the composed bound being exp(Σ ε_i·d_i).
 *
 * <p>Rows are matched by their keys ({@link ReleasedRows}) within one id column and key kind (an id
 * space). A release in another id space of the same source, or without ids, cannot be matched to rows:
 * it counts against every row. Sums are compared with a tolerance of {@value #TOLERANCE} so that
 * 0.1 + 0.2 does not exceed a budget of 0.3.
 */
public final class Spending {
  static final double TOLERANCE = 1e-9;

  /** The releases of one source that count as one (same {@link Release#repeatKey}): their ε, id space, rows. */
  record Identity(double epsilon, String space, List<Range> ranges) {
    boolean wildcard() {
      return space == null;
    }
  }

  /** A run of row keys of one id space with the same total. */
  public record Segment(String space, long lo, long hi, double total) {
    long size() {
      return new Range(lo, hi).size();
    }
  }

  private final String source;
  private final List<Release> releases;
  private final Map<String, Identity> identities = new LinkedHashMap<>();

  /** The spending of {@code source} by {@code releases} (those of other sources are ignored). */
  public Spending(String source, List<Release> releases) {
    this.source = source;
    this.releases = releases.stream().filter(r -> r.source().equals(source)).toList();
    Map<String, List<Release>> byKey = new LinkedHashMap<>();
    for (Release r : this.releases) {
      byKey.computeIfAbsent(r.repeatKey(), k -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<String, List<Release>> e : byKey.entrySet()) {
      Release first = e.getValue().get(0);
      String space = space(first);
      List<Range> all = new ArrayList<>();
      if (space != null) {
        e.getValue().forEach(r -> all.addAll(r.rows().ranges()));
      }
      identities.put(e.getKey(), new Identity(first.epsilon(), space, space == null ? null : ReleasedRows.merge(all)));
    }
  }

  static String space(Release r) {
    return r.rows().space();
  }

  public String source() {
    return source;
  }

  public List<Release> releases() {
    return releases;
  }

  /** The id spaces of the source's releases. */
  List<String> spaces() {
    return identities.values().stream().map(Identity::space).filter(s -> s != null).distinct().toList();
  }

  /** ε counted against every row of {@code space}: releases of other spaces, or without ids. */
  private double wildcard(String space) {
    double sum = 0;
    for (Identity i : identities.values()) {
      if (i.wildcard() || !i.space().equals(space)) {
        sum += i.epsilon();
      }
    }
    return sum;
  }

  /** Every segment of every id space, with its total (wildcards included). */
  public List<Segment> segments() {
    List<Segment> out = new ArrayList<>();
    for (String space : spaces()) {
      double wild = wildcard(space);
      TreeMap<Long, Double> steps = new TreeMap<>();
      for (Identity i : identities.values()) {
        if (space.equals(i.space())) {
          for (Range r : i.ranges()) {
            steps.merge(r.lo(), i.epsilon(), Double::sum);
            if (r.hi() != Long.MAX_VALUE) {
              steps.merge(r.hi() + 1, -i.epsilon(), Double::sum);
            }
          }
        }
      }
      double running = 0;
      Long start = null;
      for (Map.Entry<Long, Double> s : steps.entrySet()) {
        if (start != null && running > TOLERANCE) {
          out.add(new Segment(space, start, s.getKey() - 1, running + wild));
        }
        running += s.getValue();
        start = s.getKey();
      }
      if (start != null && running > TOLERANCE) {
        out.add(new Segment(space, start, Long.MAX_VALUE, running + wild));
      }
    }
    return out;
  }

  /** The largest total of any row: over the segments or, when no release has ids, the sum over all. */
  public double maximum() {
    if (spaces().isEmpty()) {
      return identities.values().stream().mapToDouble(Identity::epsilon).sum();
    }
    return segments().stream().mapToDouble(Segment::total).max().orElse(0);
  }

  /** How many row keys have each total (ascending); without ids, the largest release's rows at the sum. */
  public Map<Double, Long> distribution() {
    TreeMap<Double, Long> d = new TreeMap<>();
    if (spaces().isEmpty()) {
      long rows = releases.stream().mapToLong(r -> r.rows().rows()).max().orElse(0);
      d.put(round(maximum()), rows);
      return d;
    }
    for (Segment s : segments()) {
      d.merge(round(s.total()), s.size(), (a, b) -> a + b < a ? Long.MAX_VALUE : a + b);
    }
    return d;
  }

  private static double round(double x) {
    return Math.round(x * 1e9) / 1e9;
  }

  /** What each release added: the keys it charged that no earlier release of its identity had, times its ε. */
  public List<Added> added() {
    List<Added> out = new ArrayList<>();
    Map<String, List<Range>> covered = new LinkedHashMap<>();
    for (Release r : releases) {
      String key = r.repeatKey();
      List<Range> before = covered.get(key);
      long charged;
      if (space(r) == null) {
        charged = before == null ? r.rows().rows() : 0;
        covered.put(key, List.of());
      } else {
        charged = before == null ? r.rows().keys() : minus(r.rows().ranges(), before);
        List<Range> union = new ArrayList<>(before == null ? List.of() : before);
        union.addAll(r.rows().ranges());
        covered.put(key, ReleasedRows.merge(union));
      }
      out.add(new Added(r, charged, charged > 0 ? r.epsilon() : 0, sharing(r)));
    }
    return out;
  }

  /**
   * What release {@code release} added.
   *
   * @param keys row keys (rows, without ids) it charged for the first time in its identity
   * @param epsilon what each of them was charged (0 for a repeat)
   * @param sharesRowsWith the other releases of the source that cover some of its rows
   */
  public record Added(Release release, long keys, double epsilon, List<String> sharesRowsWith) {}

  /** The other releases of the source covering some of {@code r}'s rows (all, across id spaces or without ids). */
  private List<String> sharing(Release r) {
    List<String> out = new ArrayList<>();
    for (Release o : releases) {
      if (o == r) {
        continue;
      }
      String a = space(r);
      String b = space(o);
      if (a == null || b == null || !a.equals(b)
          || intersection(r.rows().ranges(), o.rows().ranges()) > 0) {
        out.add(o.releaseId());
      }
    }
    return out;
  }

  /** Keys in {@code a} not in {@code b} (both sorted, disjoint). */
  static long minus(List<Range> a, List<Range> b) {
    long all = 0;
    for (Range r : a) {
      all += r.size();
    }
    return all - intersection(a, b);
  }

  /** Keys in both (sorted, disjoint lists). */
  static long intersection(List<Range> a, List<Range> b) {
    long n = 0;
    int i = 0;
    int j = 0;
    while (i < a.size() && j < b.size()) {
      long lo = Math.max(a.get(i).lo(), b.get(j).lo());
      long hi = Math.min(a.get(i).hi(), b.get(j).hi());
      if (lo <= hi) {
        n += new Range(lo, hi).size();
      }
      if (a.get(i).hi() < b.get(j).hi()) {
        i++;
      } else {
        j++;
      }
    }
    return n;
  }

  /**
   * What {@code candidate} would do to this source under {@code budget} (null: no budget).
   *
   * @param keysCharged the keys it would charge for the first time in its identity
   * @param maximumAfter the largest row total after it
   * @param keysOverBudget the keys it covers whose total would exceed the budget (0 without a budget)
   * @param releasesInvolved the earlier releases covering those keys
   */
  public record Outcome(long keysCharged, double epsilon, double maximumBefore, double maximumAfter,
      long keysOverBudget, List<String> releasesInvolved) {
    public boolean refused() {
      return keysOverBudget > 0;
    }
  }

  /** The outcome of adding {@code candidate} (a release of this source not yet recorded). */
  public Outcome with(Release candidate, Double budget) {
    List<Release> all = new ArrayList<>(releases);
    all.add(candidate);
    Spending after = new Spending(source, all);
    Added added = after.added().get(all.size() - 1);
    double max = after.maximum();
    long over = 0;
    List<String> involved = new ArrayList<>();
    if (budget != null) {
      String space = space(candidate);
      if (space == null) {
        // Without ids the candidate's rows cannot be told apart: any of them may be at the maximum.
        if (max > budget + TOLERANCE) {
          over = candidate.rows().rows();
          involved.addAll(releases.stream().map(Release::releaseId).toList());
        }
      } else {
        // The candidate's space's segments already count every release of other spaces or without ids
        // against each of its rows (wildcard), so intersecting with them is exact for this space.
        List<Range> overRanges = new ArrayList<>();
        for (Segment s : after.segments()) {
          if (s.space().equals(space) && s.total() > budget + TOLERANCE) {
            overRanges.add(new Range(s.lo(), s.hi()));
          }
        }
        List<Range> overMerged = ReleasedRows.merge(overRanges);
        over = intersection(candidate.rows().ranges(), overMerged);
        if (over > 0) {
          for (Release r : releases) {
            if (!space.equals(space(r)) || intersection(r.rows().ranges(), overMerged) > 0) {
              involved.add(r.releaseId());
            }
          }
        }
      }
    }
    return new Outcome(added.keys(), added.epsilon(), maximum(), max, over, involved);
  }

  /** One line about the source: releases, maximum per row. */
  public String describe() {
    return String.format(Locale.ROOT, "%s: %d release(s), %d distinct, largest ε per row %s", source, releases.size(),
        identities.size(), format(maximum()));
  }

  static String format(double x) {
    return String.format(Locale.ROOT, "%.6g", x).replaceAll("\\.?0+(e|$)", "$1");
  }
}
