package dev.dptext.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.ConnectServer;
import dev.dptext.job.testing.SharedSpark;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evaluations behind tune, privacy-stats and calibrate, called as a library through a Spark Connect
 * client session, give the classic session's figures, bit for bit (same seeds; both sides run local[2],
 * hence the same task slices); the MLlib-based ones (utility, membership inference) refuse a Connect session
 * before reading. The Connect session is a client of this test JVM's real Connect server ({@link
 * ConnectServer}); the model is a file, so the server's tasks load and verify it themselves, and the models
 * only in memory travel in the plan. (It lives in this module, not udfs, to share that one server.)
 */
@Tag("integration")
class ConnectEvaluationTest {
  @TempDir static Path dir;
  private static LinkedHashMap<String, Serializable> onConnect;

  @BeforeAll
  static void runOnConnect() throws IOException {
    SharedSpark.get();
    EvaluationFigures.writeModel(dir.resolve("glove.txt"));
    SparkSession connect = ConnectServer.session();
    try {
      onConnect = EvaluationFigures.refusals(connect, dir.resolve("no-such-table"));
      onConnect.put("session class", connect.getClass().getName());
      onConnect.putAll(EvaluationFigures.compute(connect, dir.resolve("glove.txt")));
    } finally {
      ConnectServer.giveBackClassicSession();
    }
  }

  @Test
  void theClientSessionWasSparkConnect() {
    assertEquals(false, onConnect.get("classic"));
    assertTrue(onConnect.get("session class").toString().startsWith("org.apache.spark.sql.connect."),
        onConnect.get("session class").toString());
  }

  @Test
  void tunePrivacyStatsAndCalibrateFiguresAreTheClassicOnes() {
    LinkedHashMap<String, Serializable> onClassic = EvaluationFigures.compute(SharedSpark.get(), dir.resolve("glove.txt"));
    for (var e : onClassic.entrySet()) {
      assertEquals(e.getValue(), onConnect.get(e.getKey()), e.getKey());
    }
    assertEquals(onClassic.keySet(), onConnect.keySet().stream().filter(onClassic::containsKey)
        .collect(Collectors.toSet()));
    assertTrue(((List<?>) onConnect.get("tune points vickrey:t=0.5")).size() > 2, "the tuner evaluated several settings");
  }

  @Test
  void theMllibEvaluationsRefuseConnectBeforeReadingAndNameTheAlternative() {
    for (String which : List.of("utility", "mia")) {
      String outcome = onConnect.get(which).toString();
      // The table does not exist: reading it would have failed with an analysis error instead.
      dev.dptext.testing.ErrorAssertions.assertErrorText(outcome, "CLASSIC_SESSION_REQUIRED");
      assertTrue(outcome.contains("Spark Connect session") && outcome.contains("classic Spark session: spark-submit"),
          outcome);
    }
  }
}
