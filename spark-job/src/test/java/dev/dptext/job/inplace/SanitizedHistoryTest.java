package dev.dptext.job.inplace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.inplace.SanitizedHistory.Entry;
import dev.dptext.job.inplace.SanitizedHistory.Judgement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The rule behind an in-place run's "nothing to do" ({@link SanitizedHistory}), on histories written out
 * as {@code DESCRIBE HISTORY} shows them: no Spark, so every kind of commit is covered at no cost
 * (PurgeInterleavingTest runs the real writers and runs).
 */
class SanitizedHistoryTest {
  static final String AUDIT = "{\"dptext.version\":\"1.0\",\"dptext.mechanism\":\"santext\",\"dptext.run\":\"r\"";
  static final String DPTEXT = AUDIT + "}";
  static final String PURGE = AUDIT + ",\"dptext.inPlace\":\"purge-history: sanitized in place\"}";
  static final String KEEP = AUDIT + ",\"dptext.inPlace\":\"keep-history: sanitized in place\"}";
  /** A rejects table's commit: dptext's run id, no audit (raw records). */
  static final String REJECTS = "{\"dptext.run\":\"r\"}";

  static final Map<String, String> APPEND = Map.of("mode", "Append", "partitionBy", "[]");
  static final Map<String, String> OVERWRITE = Map.of("mode", "Overwrite", "partitionBy", "[]");
  static final Map<String, String> NEW = Map.of("mode", "ErrorIfExists", "partitionBy", "[]");

  /** A history, one entry per version from {@code first}: operation, parameters, userMetadata, repeated. */
  static List<Entry> history(long first, Object... commits) {
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < commits.length; i += 3) {
      @SuppressWarnings("unchecked")
      Map<String, String> params = (Map<String, String>) commits[i + 1];
      out.add(new Entry(first + i / 3, (String) commits[i], params, (String) commits[i + 2]));
    }
    return out;
  }

  static Judgement judge(List<Entry> h) {
    return SanitizedHistory.judge(h, h.stream().mapToLong(Entry::version).max().orElseThrow());
  }

  static final Map<String, String> PROPS = Map.of("properties", "{}");

  @Test
  void aPurgedTableWithDptextAppendsAndMaintenanceHoldsNoRawVersion() {
    List<Entry> h = history(0, "WRITE", NEW, PURGE, "SET TBLPROPERTIES", PROPS, null, "SET TBLPROPERTIES", PROPS,
        null, "WRITE", APPEND, DPTEXT, "OPTIMIZE", Map.of(), null, "VACUUM START", Map.of(), null, "VACUUM END",
        Map.of(), null, "MERGE", Map.of(), DPTEXT);
    Judgement j = judge(h);
    assertTrue(j.noRawVersion());
    assertTrue(j.liveRowsSanitized());
    assertEquals(0, j.wholeTable().orElseThrow().version());
    assertTrue(j.createdBy().toString().contains("purge-history"), j.createdBy().toString());
  }

  @Test
  void aDptextAppendAfterAnotherWritersCommitLeavesItsRowsRaw() {
    // Issue 53: the newest commit is dptext's, the rows under it are not.
    for (String other : new String[] {"WRITE", "UPDATE", "MERGE", "DELETE", "RESTORE", "CHANGE COLUMN"}) {
      List<Entry> h = history(0, "WRITE", NEW, PURGE, "SET TBLPROPERTIES", PROPS, null, other, APPEND, null,
          "WRITE", APPEND, DPTEXT, "SET TBLPROPERTIES", PROPS, null);
      Judgement j = judge(h);
      assertFalse(j.noRawVersion(), other);
      assertFalse(j.liveRowsSanitized(), other);
      assertEquals(2, j.unsanitized().orElseThrow().version(), other);
      assertTrue(j.unsanitized().orElseThrow().toString().contains("by another writer"), other);
    }
    // A raw table, then a dptext append from another input.
    Judgement raw = judge(history(0, "WRITE", NEW, null, "WRITE", APPEND, DPTEXT));
    assertFalse(raw.noRawVersion());
    assertFalse(raw.liveRowsSanitized());
  }

  @Test
  void keepHistorySanitizesTheLiveRowsButNotTheHistory() {
    List<Entry> h = history(0, "WRITE", NEW, null, "WRITE", OVERWRITE, KEEP, "SET TBLPROPERTIES", PROPS, null,
        "WRITE", APPEND, DPTEXT);
    Judgement j = judge(h);
    assertTrue(j.liveRowsSanitized());
    assertEquals(1, j.wholeTable().orElseThrow().version());
    assertFalse(j.noRawVersion());
    assertEquals(0, j.unsanitized().orElseThrow().version());
    // Judged at version 0 (the version a run read): only the raw write.
    assertFalse(SanitizedHistory.judge(h, 0).liveRowsSanitized());
  }

  @Test
  void onlyAWholeTableOverwriteReplacesEveryRow() {
    Map<String, String> replaceWhere = Map.of("mode", "Overwrite", "partitionBy", "[]", "predicate", "[\"(id < 5)\"]");
    assertFalse(judge(history(0, "WRITE", NEW, null, "WRITE", replaceWhere, DPTEXT)).liveRowsSanitized());
    assertFalse(judge(history(0, "WRITE", NEW, null, "MERGE", Map.of(), DPTEXT)).liveRowsSanitized());
    // Another writer's overwrite is not dptext's rows; a catalog table replaced by dptext is.
    assertFalse(judge(history(0, "WRITE", NEW, DPTEXT, "WRITE", OVERWRITE, null)).liveRowsSanitized());
    assertTrue(judge(history(0, "CREATE TABLE AS SELECT", Map.of(), null, "CREATE OR REPLACE TABLE AS SELECT",
        Map.of(), DPTEXT)).liveRowsSanitized());
  }

  @Test
  void rejectsAndFreeFormUserMetadataAreNotSanitizingCommits() {
    Judgement rejects = judge(history(0, "WRITE", NEW, REJECTS));
    assertFalse(rejects.noRawVersion());
    assertTrue(rejects.unsanitized().orElseThrow().toString().contains("raw records"));
    assertFalse(judge(history(0, "WRITE", NEW, "nightly load, dptext.version 1")).noRawVersion());
    assertFalse(judge(history(0, "WRITE", NEW, "{\"dptext.version\":\"1.0\"}")).noRawVersion());
  }

  @Test
  void anEmptyTableFilledByDptextHoldsNoRawVersion() {
    Judgement j = judge(history(0, "CREATE TABLE", Map.of(), null, "WRITE", APPEND, DPTEXT));
    assertTrue(j.noRawVersion());
    assertTrue(j.liveRowsSanitized());
  }

  @Test
  void aHistoryCutShortByLogCleanUpProvesNoPurge() {
    // Versions 0-9 cleaned up: the live rows are dptext's since version 10, the earlier versions unknown.
    Judgement j = judge(history(10, "WRITE", OVERWRITE, DPTEXT, "WRITE", APPEND, DPTEXT));
    assertTrue(j.liveRowsSanitized());
    assertFalse(j.noRawVersion());
    assertEquals(10, j.oldest());
    // Without a whole-table write in what is left, nothing is known.
    assertFalse(judge(history(10, "WRITE", APPEND, DPTEXT)).liveRowsSanitized());
  }
}
