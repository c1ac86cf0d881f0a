package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.ConnectServer;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tune, privacy-stats and calibrate with the job's session a Spark Connect client of a real local server
 * ({@link ConnectServer}) print the classic runs' figures, character for character (same seeds; both
 * sides local[2]); evaluate utility and evaluate mia refuse a Connect session before reading anything.
 */
@Tag("integration")
class ConnectEvaluationCommandsTest {
  @TempDir static Path tmp;
  static SparkSession connect;
  static Path glove;
  static Path lexicon;

  @BeforeAll
  static void setUp() throws IOException {
    SharedSpark.get();
    connect = ConnectServer.session();
    glove = JobFixtures.gloveFile(tmp, 2000);
    lexicon = tmp.resolve("lexicon.csv");
    Files.writeString(lexicon, "word,label\ngood,1\ngreat,1\nbest,1\nbad,0\nworst,0\npoor,0\n");
  }

  /** Runs the job in {@code spark} (null: the job's own session, classic here) with its output captured. */
  static Run run(SparkSession spark, String... args) {
    return JobFixtures.run(spark, args);
  }

  /** Both runs succeed and print the same, wall-clock times aside. */
  static void samePrint(String... args) {
    Run classic = run(null, args);
    assertEquals(0, classic.exitCode(), classic.err());
    Run onConnect = run(connect, args);
    assertEquals(0, onConnect.exitCode(), onConnect.out() + onConnect.err());
    assertEquals(untimed(classic.out()), untimed(onConnect.out()));
  }

  private static String untimed(String out) {
    return out.replaceAll("; \\d+ s\\.", "; _ s.").replaceAll("sampling took [0-9.]+ s", "sampling took _ s");
  }

  @Test
  void tuneGivesTheClassicPointsAndRecommendation() throws IOException {
    String[] args = {"tune", "--max-utility-loss", "0.2", "--lexicon", lexicon.toString(), "--uniform-prior",
        "--model", glove.toString(), "--neighbours", "32", "--mechanisms", "santext laplace vickrey:t=0.5",
        "--draws", "200", "--max-draws", "200", "--refine", "2", "--t-grid", "0.5,1", "--output", null};
    args[args.length - 1] = tmp.resolve("tune-classic").toString();
    Run classic = run(null, args);
    assertEquals(0, classic.exitCode(), classic.err());
    args[args.length - 1] = tmp.resolve("tune-connect").toString();
    Run onConnect = run(connect, args);
    assertEquals(0, onConnect.exitCode(), onConnect.out() + onConnect.err());
    assertEquals(untimed(classic.out()), untimed(onConnect.out()));
    assertTrue(onConnect.out().contains("Recommended: "), onConnect.out());
    assertEquals(Files.readString(tmp.resolve("tune-classic/tune-points.csv")),
        Files.readString(tmp.resolve("tune-connect/tune-points.csv")));
  }

  @Test
  void privacyStatsGivesTheClassicTable() {
    samePrint("privacy-stats", "--model", glove.toString(), "--neighbours", "32", "--mechanisms",
        "laplace santext vickrey:t=0.5", "--epsilons", "5,20", "--words", "100", "--runs", "50", "--seed", "3");
  }

  @Test
  void calibrateGivesTheClassicRatiosExactAndSampled() {
    samePrint("calibrate", "--model", glove.toString(), "--neighbours", "32", "--mechanism-a", "laplace",
        "--epsilon-a", "10", "--mechanism-b", "brr:bits=64");
    samePrint("calibrate", "--model", glove.toString(), "--neighbours", "32", "--mechanism-a", "mahalanobis:lambda=0.5",
        "--epsilon-a", "10", "--mechanism-b", "brr:bits=64", "--sample-pairs", "600000", "--seed", "5");
  }

  @Test
  void evaluateRefusesConnectBeforeReadingAndNamesTheAlternative() {
    for (String which : List.of("utility", "mia")) {
      Path out = tmp.resolve("evaluate-" + which);
      // The input does not exist: reading it would have been an input error (exit 3), not this one.
      Run r = run(connect, "evaluate", which, "--input", tmp.resolve("no-such-table.jsonl").toString(),
          "--model", glove.toString(), "--output", out.toString());
      assertEquals(2, r.exitCode(), r.out() + r.err());
      assertTrue(r.err().contains("Spark Connect session") && r.err().contains("classic Spark session: spark-submit")
          && r.err().contains("tune, privacy-stats and calibrate"), r.err());
      assertFalse(Files.exists(out), "nothing written");
    }
  }
}
