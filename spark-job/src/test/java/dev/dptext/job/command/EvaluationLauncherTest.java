package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.testing.ErrorAssertions;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.Launcher;
import dev.dptext.job.testing.ProcessLane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evaluation commands through {@code scripts/dptext}, as a user runs them, each its own JVM and
 * production session: {@code tune} end to end, and {@code evaluate utility} refusing a label column that is
 * not binary with one message and exit code 2 (their in-JVM runs: {@link EvaluationCommandsTest}).
 */
@Tag("integration")
@ProcessLane
class EvaluationLauncherTest {
  @TempDir static Path dir;
  static Path glove;

  @BeforeAll
  static void data() {
    glove = JobFixtures.gloveFile(dir, 2000);
  }

  @Test
  void tuneRecommendsASettingWithItsGuaranteeAndWritesThePoints() throws IOException {
    Path lexicon = dir.resolve("lexicon.csv");
    Files.writeString(lexicon, "word,label\ngood,1\ngreat,1\nbest,1\nbad,0\nworst,0\npoor,0\n");
    Path out = dir.resolve("tune");
    // Through scripts/dptext, as a user runs it (the tune command's launcher test).
    Run run = Launcher.run("tune", "--max-utility-loss", "0.2", "--lexicon", lexicon.toString(),
        "--uniform-prior", "--model", glove.toString(), "--neighbours", "32", "--mechanisms", "santext laplace",
        "--draws", "200", "--refine", "2", "--max-standard-error", "0.0001", "--max-draws", "400",
        "--output", out.toString());
    assertEquals(0, run.exitCode(), run.err());
    // Laplace's points draw more until --max-draws, and say that they stopped above the bound.
    assertTrue(run.out().contains("at --max-draws 400"), run.out());
    assertTrue(run.err().contains("drawing 400"), run.err());
    assertTrue(run.out().contains("Evaluation vocabulary: 6 lexicon words"), run.out());
    assertTrue(run.out().contains("Recommended: "), run.out());
    assertTrue(run.out().contains("Guarantee: "), run.out());
    List<String[]> points = EvaluationCommandsTest.csv(out.resolve("tune-points.csv"));
    assertTrue(points.stream().anyMatch(p -> p[0].equals("santext") && p[10].equals("true")), "SanText is exact");
    assertTrue(points.stream().anyMatch(p -> p[0].equals("laplace") && p[10].equals("false")), "Laplace is sampled");
    // Each mechanism's utility loss L_M falls from its smallest ε to its largest: at a small ε a word is
    // replaced by almost any word, at a large one mostly kept (an ε applied upside down fails this).
    for (String mechanism : List.of("santext", "laplace")) {
      List<String[]> m = points.stream().filter(p -> p[0].equals(mechanism))
          .sorted(java.util.Comparator.comparingDouble(p -> Double.parseDouble(p[2]))).toList();
      assertTrue(m.size() >= 2, mechanism + ": " + m.size() + " points");
      double lowEpsilonLoss = Double.parseDouble(m.get(0)[5]);
      double highEpsilonLoss = Double.parseDouble(m.get(m.size() - 1)[5]);
      assertTrue(highEpsilonLoss < lowEpsilonLoss, mechanism + ": L_M " + lowEpsilonLoss + " at ε " + m.get(0)[2]
          + ", " + highEpsilonLoss + " at ε " + m.get(m.size() - 1)[2]);
    }
    assertNotNull(ImageIO.read(out.resolve("tune-tradeoff.png").toFile()));
  }

  /**
   * Regression: string labels with more than two values ended in a raw CAST_INVALID_INPUT trace. The production
   * session reads the table, and the error reaches the user as one message and exit code 2, no trace.
   */
  @Test
  void aLabelColumnThatIsNotBinaryIsOneMessageThroughTheLauncher() throws IOException {
    StringBuilder three = new StringBuilder();
    for (int i = 0; i < 120; i++) {
      String text = (i % 5 < 2 ? "win cash prize " : "meeting at noon ") + (i % 3 == 0 ? "today" : "again");
      three.append(String.format(Locale.ROOT, "{\"id\":%d,\"text\":\"%s\",\"kind\":\"%s\"}%n", i, text,
          i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c"));
    }
    Path threeFile = dir.resolve("three.jsonl");
    Files.writeString(threeFile, three);
    Run bad = Launcher.run("evaluate", "utility", "--input", threeFile.toString(),
        "--label-column", "kind", "--model", glove.toString(), "--neighbours", "32", "--epsilons", "laplace=10",
        "--output", dir.resolve("bad").toString());
    assertEquals(2, bad.exitCode(), bad.err());
    ErrorAssertions.assertErrorText(bad.err(), "LABEL_NOT_BINARY");
    assertTrue(bad.err().contains("The label column 'kind'") && bad.err().contains("3 distinct values")
        && bad.err().contains("exactly two"), bad.err());
    assertFalse(bad.err().contains("CAST_INVALID_INPUT") || bad.err().contains("\tat "), bad.err());
  }
}
