package dev.dptext.job.ledger;

import dev.dptext.config.Setting;
import dev.dptext.job.run.RunSummary;
import dev.dptext.runtime.RowContent;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.settings.Settings;
import java.sql.Timestamp;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * What every release of one run has in common (a batch run has one release, a stream one per
 * micro-batch), with where its ledger is and its budget: everything but the rows and the snapshot.
 * Serializable: a stream's micro-batch function carries it to a Spark Connect server.
 *
 * @param ledger the ledger's location (path or catalog name), null for a dry run without a ledger
 * @param budget {@code --epsilon-budget}, null for none
 * @param contentKey keys what each release sanitized into its content fingerprint
 */
public record ReleasePlan(String ledger, Double budget, String source, String idColumn, String mechanism,
    String parameters, double epsilon, String guarantee, String keyFingerprint, String randomness,
    String settingsFingerprint, String output, ContentKey contentKey) implements java.io.Serializable {

  /** The key's sources: the key itself is told by its fingerprint, wherever it was read from. */
  private static final Set<Setting<?>> KEY_SOURCES = Set.of(Settings.KEY_FILE, Settings.KEY_ENV,
      Settings.DATABRICKS_SECRET, Settings.SECRET_KEY);

  /**
   * The plan of a run.
   *
   * @param options the sanitization's settings
   * @param ids how rows are seeded
   * @param keyFingerprint the key's fingerprint, null when fresh or not readable here
   * @param contentKey the key, to fingerprint what each release sanitized ({@link ContentKey#NONE} without one)
   * @param guarantee the mechanism's guarantee text
   * @param extra what else the output depends on (model hash, columns, word frequencies), as name=value
   */
  public static ReleasePlan of(String ledger, Double budget, String source, String idColumn, DpTextOptions options,
      IdMode ids, String keyFingerprint, ContentKey contentKey, String guarantee, List<String> extra, String output) {
    TreeMap<String, String> settings = new TreeMap<>();
    for (Setting<?> s : Settings.ALL) {
      if (!KEY_SOURCES.contains(s)) {
        settings.put(s.name(), text(options, s));
      }
    }
    StringBuilder all = new StringBuilder();
    settings.forEach((k, v) -> all.append(k).append('=').append(v).append('\u0000'));
    extra.forEach(e -> all.append(e).append('\u0000'));
    boolean fresh = ids == IdMode.FRESH || options.get(Settings.FRESH_RANDOMNESS);
    String randomness = fresh ? "fresh" : ids == IdMode.COLUMN ? "column" : "content-hash";
    var spec = options.mechanismSpec();
    return new ReleasePlan(ledger, budget, source, idColumn, spec.name(), spec.describe(), spec.epsilon(), guarantee,
        fresh ? null : keyFingerprint, randomness, Release.sha256(all.toString()), output,
        fresh || keyFingerprint == null ? ContentKey.NONE : contentKey);
  }

  private static <T> String text(DpTextOptions options, Setting<T> s) {
    T v = options.get(s);
    return v == null ? "" : s.format(v);
  }

  /**
   * The release of {@code rows} read at {@code sourceVersion}, recorded now; {@code content}: the sums of
   * what it sanitized ({@code InputTable.count(true)}), null when not known (the release is then only itself).
   */
  public Release release(String sourceVersion, ReleasedRows rows, RowContent.Sums content) {
    return new Release(java.util.UUID.randomUUID().toString(), new Timestamp(System.currentTimeMillis()), source,
        sourceVersion, rows, mechanism, parameters, epsilon, guarantee, keyFingerprint, randomness,
        settingsFingerprint, contentKey == null ? null : contentKey.fingerprint(content), output, RunSummary.VERSION);
  }
}
