package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.config.Setting;
import dev.dptext.job.ledger.ContentKey;
import dev.dptext.job.ledger.ReleasePlan;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.settings.Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every option of {@code sanitize}, taken from the command's own declarations (as {@code
 * OptionsDocumentedTest} does), either cannot change any output row or, when it changes one, makes the
 * release not a repeat of one without it ({@code docs/ledger.md}, "What a repeat is"):
 *
 * <ul>
 *   <li>a setting (the table of {@link Settings}): shown here, option by option, that some value of it changes
 *       the settings fingerprint, or, for the key's sources, that it names the key the key fingerprint tells;
 *   <li>an option that decides which rows are read, and how their bytes become ids and texts: the release's
 *       content is those rows' seed bytes and texts as the sanitizer reads them, so a change that changes an
 *       output changes the content by construction ({@code LedgerUnderCountTest} plays the schema order, an
 *       input option and time zones through the job; {@code LedgerPropertyTest} text columns, id types,
 *       {@code --where} and the private corpus against an oracle);
 *   <li>an option of where and how the output is written, or of the run's bookkeeping: no row's text depends
 *       on it ({@code LedgerUnderCountTest.optionsOfTheWriteChangeNoOutputRow} runs the job with them changed).
 * </ul>
 * A new option of {@code sanitize} fails this test until it is put in one of these, with its reason.
 */
class ReleaseIdentityOptionsTest {
  /** Options deciding which rows are read and how they become ids and texts: the release's content. */
  static final Map<String, String> READ = Map.of(
      "--input", "which rows",
      "--input-format", "how bytes become rows",
      "--input-option", "how bytes become values",
      "--input-schema", "which column holds what, and each value's type (the id's seed bytes)",
      "--where", "which rows",
      "--text-column", "which text (also in the settings fingerprint)",
      "--id-column", "which bytes seed each row (also the release's id space)",
      "--frequency-source", "SanText+'s ranks: from the embeddings (settings) or from the released rows' texts",
      "--trigger", "a stream's micro-batches: which rows each release holds",
      "--max-files-per-trigger", "a stream's micro-batches: which rows each release holds");

  /** Options the job adds to the settings fingerprint itself (its {@code extra}: columns, frequencies). */
  static final Map<String, String> IN_THE_FINGERPRINT = Map.of(
      "--output-column", "the column written, which is also the rows' purpose (their seeds)");

  /** Options of where and how the output is written, or of the run's bookkeeping: no row's text depends on them. */
  static final Map<String, String> NOT_IN_ANY_ROW = new TreeMap<>(Map.ofEntries(
      Map.entry("--config", "a file of these same options, each classified here"),
      Map.entry("--output", "where the rows go"),
      Map.entry("--output-format", "how the rows are stored"),
      Map.entry("--mode", "how the rows are committed"),
      Map.entry("--merge-key", "how the rows are committed"),
      Map.entry("--in-place", "how the input's history is treated"),
      Map.entry("--txn-app-id", "the commit's idempotence"),
      Map.entry("--txn-version", "the commit's idempotence"),
      Map.entry("--summary-json", "the run's report"),
      Map.entry("--show", "the run's report"),
      Map.entry("--progress-interval", "the run's report"),
      Map.entry("--partitions", "how rows are spread over tasks: each row is seeded by its own id"),
      Map.entry("--ledger", "the accounting"),
      Map.entry("--epsilon-budget", "the accounting"),
      Map.entry("--dry-run", "writes nothing"),
      Map.entry("--on-corrupt", "what happens to rejected records, which are never sanitized"),
      Map.entry("--rejects", "where rejected records go"),
      Map.entry("--stream", "runs the same rows as micro-batches, each a release of its own"),
      Map.entry("--checkpoint", "where a stream keeps its progress"),
      Map.entry("--max-bytes-per-trigger", "a stream's micro-batches: which rows each release holds")));

  /** Where the key comes from: the release records the key's fingerprint, and keys its content with it. */
  static final Set<Setting<?>> KEY_SOURCES = Set.of(Settings.KEY_FILE, Settings.KEY_ENV, Settings.DATABRICKS_SECRET,
      Settings.SECRET_KEY);

  /**
   * Values tried, after a choice setting's own choices, to find one that changes a setting (the first that
   * parses, passes its check and changes the fingerprint).
   */
  static final List<String> CANDIDATES = List.of("true", "false", "0.5", "0.25", "2", "3", "7", "16", "1", "0",
      "laplace", "santext+", "keep", "lower", "content-hash", "fresh", "x", "/tmp/x.dptext", "partitioned");

  @Test
  void everyOptionOfSanitizeChangesNoRowOrChangesTheReleaseIdentity() {
    CommandLine sanitize = Commands.commandLine().getSubcommands().get("sanitize");
    ReleasePlan baseline = plan(DpTextOptions.defaults());
    TreeSet<String> unclassified = new TreeSet<>();
    List<String> unchanged = new ArrayList<>();
    int settings = 0;
    for (OptionSpec o : sanitize.getCommandSpec().options()) {
      if (o.usageHelp() || o.versionHelp()) {
        continue;
      }
      String name = o.longestName();
      Setting<?> setting = Settings.ALL.stream().filter(s -> s.cliName().equals(name)).findFirst().orElse(null);
      if (setting != null) {
        settings++;
        if (KEY_SOURCES.contains(setting)) {
          continue; // the key fingerprint and the content key: the key itself, whatever its source
        }
        if (!changesTheSettingsFingerprint(setting, baseline)) {
          unchanged.add(name);
        }
      } else if (!READ.containsKey(name) && !NOT_IN_ANY_ROW.containsKey(name) && !IN_THE_FINGERPRINT.containsKey(name)) {
        unclassified.add(name);
      }
    }
    assertEquals(new TreeSet<String>(), unclassified, "options of sanitize in no class of ReleaseIdentityOptionsTest: "
        + "say whether they can change an output row, and if so what makes the release another");
    assertEquals(List.of(), unchanged, "settings no value of which changes the settings fingerprint");
    assertTrue(settings > 10, "the settings' options were found: " + settings);
  }

  /** The key sources are exactly the settings the fingerprint leaves out, and no other. */
  @Test
  void theKeysSourcesAreTheOnlySettingsLeftOutOfTheFingerprint() {
    ReleasePlan a = plan(DpTextOptions.defaults().withText(Settings.KEY_FILE, "/tmp/a.key"));
    ReleasePlan b = plan(DpTextOptions.defaults().withText(Settings.KEY_FILE, "/tmp/b.key"));
    assertEquals(a.settingsFingerprint(), b.settingsFingerprint(), "the same key read from another file: one release");
  }

  private static boolean changesTheSettingsFingerprint(Setting<?> setting, ReleasePlan baseline) {
    List<String> values = new ArrayList<>(setting.type().choices());
    values.addAll(CANDIDATES);
    for (String value : values) {
      DpTextOptions changed;
      try {
        changed = DpTextOptions.defaults().withText(setting, value);
      } catch (RuntimeException e) {
        continue; // not a value of this setting
      }
      if (!plan(changed).settingsFingerprint().equals(baseline.settingsFingerprint())) {
        return true;
      }
    }
    return false;
  }

  private static ReleasePlan plan(DpTextOptions options) {
    ReleasePlan p = ReleasePlan.of(null, null, "files", "id", options, IdMode.COLUMN, "k", ContentKey.NONE, "g",
        List.of("model=m", "text=text", "output=text", "frequencies=embeddings"), "out");
    assertNotEquals(null, p.settingsFingerprint());
    return p;
  }
}
