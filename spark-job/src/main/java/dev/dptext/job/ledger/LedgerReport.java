package dev.dptext.job.ledger;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What {@code dptext ledger} prints (and writes as JSON): the ledger's spending per source. */
public final class LedgerReport {
  private final LedgerTable.Contents contents;
  private final List<Spending> sources = new ArrayList<>();

  private LedgerReport(LedgerTable.Contents contents, String filter) {
    this.contents = contents;
    LinkedHashSet<String> names = new LinkedHashSet<>();
    contents.releases().forEach(r -> names.add(r.source()));
    for (String s : names) {
      if (filter == null || s.contains(filter)) {
        sources.add(new Spending(s, contents.releases()));
      }
    }
  }

  /** The report of {@code contents}, for the sources whose identity contains {@code filter} (null: all). */
  public static LedgerReport of(LedgerTable.Contents contents, String filter) {
    return new LedgerReport(contents, filter);
  }

  /**
   * The report of the ledger at {@code location} as JSON (what Python's {@code dptext.ledger} returns).
   *
   * @throws dev.dptext.job.base.JobException (usage) when there is no ledger there
   */
  public static String json(org.apache.spark.sql.SparkSession spark, String location, String filter) {
    LedgerTable table = new LedgerTable(spark, location);
    if (!table.exists()) {
      throw dev.dptext.job.base.JobException.of("LEDGER_NOT_FOUND", "ledger", location);
    }
    return dev.dptext.job.write.OutputFormat.toJson(of(table.read(), filter).toMap());
  }

  public List<Spending> sources() {
    return sources;
  }

  /** The report as text. */
  public String render() {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "Privacy ledger: %d release(s) that count, %d source(s) shown%n",
        contents.releases().size(), sources.size()));
    for (Spending s : sources) {
      b.append('\n').append("Source ").append(s.describe()).append('\n');
      b.append("  ε per row (total)  row keys\n");
      for (Map.Entry<Double, Long> e : s.distribution().entrySet()) {
        b.append(String.format(Locale.ROOT, "  %-18s %,d%n", Spending.format(e.getKey()), e.getValue()));
      }
      b.append("  Releases, oldest first:\n");
      for (Spending.Added a : s.added()) {
        Release r = a.release();
        Long v = contents.committed().get(r.releaseId());
        b.append(String.format(Locale.ROOT, "  %s  %s  %s  %s%n    rows: %s%n    added: %s; output: %s%s%n"
                + "    shares rows with: %s%n",
            r.recordedAt(), r.releaseId(), r.parameters(), r.keyFingerprint() == null ? "no key (fresh or unknown)"
                : "key " + r.keyFingerprint().substring(0, 8) + "…", r.rows().describe(),
            a.epsilon() == 0 ? "nothing (a repeat)" : String.format(Locale.ROOT, "ε %s to %,d row key(s)",
                Spending.format(a.epsilon()), a.keys()),
            r.output(), v == null ? " (not confirmed: crashed or still running; counted)"
                : v >= 0 ? " version " + v : "",
            a.sharesRowsWith().isEmpty() ? "none" : String.join(", ", a.sharesRowsWith())));
      }
    }
    return b.toString();
  }

  /** The report as JSON-ready maps. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    List<Object> list = new ArrayList<>();
    for (Spending s : sources) {
      Map<String, Object> src = new LinkedHashMap<>();
      src.put("source", s.source());
      src.put("maximumEpsilonPerRow", s.maximum());
      List<Object> dist = new ArrayList<>();
      s.distribution().forEach((eps, keys) -> dist.add(Map.of("epsilon", eps, "rowKeys", keys)));
      src.put("distribution", dist);
      List<Object> rel = new ArrayList<>();
      for (Spending.Added a : s.added()) {
        Release r = a.release();
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("releaseId", r.releaseId());
        x.put("recordedAt", r.recordedAt().toInstant().toString());
        x.put("mechanism", r.parameters());
        x.put("epsilon", r.epsilon());
        x.put("rows", r.rows().rows());
        x.put("rowKeysCharged", a.keys());
        x.put("epsilonAdded", a.epsilon());
        x.put("output", r.output());
        x.put("committedVersion", contents.committed().get(r.releaseId()));
        x.put("sharesRowsWith", a.sharesRowsWith());
        rel.add(x);
      }
      src.put("releases", rel);
      list.add(src);
    }
    m.put("sources", list);
    return m;
  }
}
