package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evaluation commands as users run them ({@code evaluate utility}, {@code evaluate mia}; {@code tune} and
 * an evaluation's usage error through {@code scripts/dptext}: {@link EvaluationLauncherTest}), end to end
 * through the CLI on a labelled toy set that one word separates: the commands run, their CSV holds every
 * cell, the plots are readable PNGs, the page names the command, and the figures are the ones the toy set
 * dictates.
 */
@Tag("integration")
class EvaluationCommandsTest {
  @TempDir static Path dir;
  static Path input;
  static Path glove;

  /** 160 reviews, 60 % positive: "good …" is label 1, "bad …" label 0; the rest is shared filler. */
  @BeforeAll
  static void data() throws IOException {
    SharedSpark.get();
    glove = JobFixtures.gloveFile(dir, 2000);
    StringBuilder jsonl = new StringBuilder();
    String[] filler = {"the film was", "this movie is", "the story that felt", "the acting seemed", "our evening was"};
    for (int i = 0; i < 160; i++) {
      boolean positive = i % 5 < 3;
      jsonl.append(String.format(Locale.ROOT, "{\"id\":%d,\"review\":\"%s %s %s\",\"sentiment\":%d}%n", i,
          filler[i % 5], positive ? "good" : "bad", i % 7 == 0 ? "today" : "again", positive ? 1 : 0));
    }
    input = dir.resolve("reviews.jsonl");
    Files.writeString(input, jsonl);
  }

  @Test
  void utilityRunsEveryCellAndAChangelessSettingMatchesTheRawModel() throws IOException {
    Path out = dir.resolve("utility");
    Run run = JobFixtures.run("evaluate", "utility", "--input", input.toString(),
        "--text-column", "review", "--label-column", "sentiment", "--model", glove.toString(), "--neighbours", "32",
        "--mechanisms", "laplace", "--epsilons", "1,2000", "--trials", "2", "--output", out.toString());
    assertEquals(0, run.exitCode(), run.err());
    List<String[]> trials = csv(out.resolve("utility-trials.csv"));
    // 2 ε × 2 trials × 2 test settings.
    assertEquals(8, trials.size());
    Map<String, Double> accuracy = new TreeMap<>();
    for (String[] t : trials) {
      accuracy.merge(t[0] + "@" + t[2] + "/" + t[5], Double.parseDouble(t[6]) / 2, Double::sum);
    }
    // One word separates the labels: at ε = 2000 the mechanism changes no in-vocabulary word, so the
    // model trained on the sanitized text is as perfect as the raw one, on clean and sanitized test text.
    assertEquals(1.0, accuracy.get("laplace@2000.0/clean"), 1e-9, accuracy.toString());
    assertEquals(1.0, accuracy.get("laplace@2000.0/sanitized"), 1e-9, accuracy.toString());
    // At ε = 1 the Laplace noise (radius ~ m/ε = 100) replaces nearly every word: no better than chance.
    assertTrue(accuracy.get("laplace@1.0/clean") < 0.85, accuracy.toString());
    for (String png : List.of("utility-accuracy-clean-test.png", "utility-auc-sanitized-test.png")) {
      assertNotNull(ImageIO.read(out.resolve(png).toFile()), png);
    }
    String page = Files.readString(out.resolve("index.html"));
    assertTrue(page.contains("dptext evaluate utility --input " + input), "the page gives the command as typed");
    assertTrue(page.contains(dev.dptext.evaluation.DownstreamUtility.HASHING), "the page states the classifier's hashing");
  }

  /**
   * Regressions: string labels (ham/spam) ended in a raw CAST_INVALID_INPUT trace; --trials 1 was refused; one
   * ε grid for all mechanisms took two runs to compare SanText ε 3 with Laplace ε 2000.
   */
  @Test
  void stringLabelsOneTrialAndAGridPerMechanism() throws IOException {
    StringBuilder jsonl = new StringBuilder();
    for (int i = 0; i < 120; i++) {
      boolean spam = i % 5 < 2;
      String text = (spam ? "win cash prize " : "meeting at noon ") + (i % 3 == 0 ? "today" : "again");
      jsonl.append(String.format(Locale.ROOT, "{\"id\":%d,\"text\":\"%s\",\"kind\":\"%s\"}%n", i, text,
          spam ? "spam" : "ham"));
    }
    Path mail = dir.resolve("mail.jsonl");
    Files.writeString(mail, jsonl);
    Path out = dir.resolve("utility-grid");
    Run run = JobFixtures.run("evaluate", "utility", "--input", mail.toString(), "--label-column",
        "kind", "--model", glove.toString(), "--neighbours", "32", "--epsilons", "santext=3;laplace=2000",
        "--trials", "1", "--output", out.toString());
    assertEquals(0, run.exitCode(), run.err());
    List<String[]> trials = csv(out.resolve("utility-trials.csv"));
    // santext ε 3 and laplace ε 2000, each at its own ε, one trial, clean and sanitized test text.
    assertEquals(4, trials.size());
    assertTrue(trials.stream().anyMatch(t -> t[0].equals("santext") && Double.parseDouble(t[3]) == 3), "santext ε 3");
    assertTrue(trials.stream().anyMatch(t -> t[0].equals("laplace") && Double.parseDouble(t[3]) == 2000));
    // spam is the positive class by default (the larger value); the one word apart makes laplace ε 2000 perfect.
    assertTrue(trials.stream().filter(t -> t[0].equals("laplace")).allMatch(t -> Double.parseDouble(t[7]) == 1.0),
        "AUC 1 at ε 2000");
    String page = Files.readString(out.resolve("index.html"));
    assertTrue(page.contains("--epsilons &#39;santext=3;laplace=2000&#39;") || page.contains("--epsilons 'santext=3;laplace=2000'"),
        "the command keeps its quotes");
    Run wrongPositive = JobFixtures.run("evaluate", "utility", "--input", mail.toString(),
        "--label-column", "kind", "--positive-label", "junk", "--model", glove.toString(), "--epsilons", "laplace=10",
        "--output", dir.resolve("bad2").toString());
    assertEquals(2, wrongPositive.exitCode(), wrongPositive.err());
    assertTrue(wrongPositive.err().contains("--positive-label 'junk' is not a value of the label column 'kind'; "
        + "its values are ham and spam"), wrongPositive.err());
  }

  @Test
  void membershipInferenceReportsTheRawBaselineAndEachCell() throws IOException {
    Path out = dir.resolve("mia");
    Run run = JobFixtures.run("evaluate", "mia", "--input", input.toString(),
        "--text-column", "review", "--label-column", "sentiment", "--model", glove.toString(), "--neighbours", "32",
        "--mechanisms", "santext", "--epsilons", "1", "--trials", "1", "--shadows", "1", "--output", out.toString());
    assertEquals(0, run.exitCode(), run.err());
    List<String[]> rows = csv(out.resolve("mia.csv"));
    assertEquals(2, rows.size(), "one raw-text trial and one santext trial");
    assertEquals("raw", rows.get(0)[0]);
    assertEquals("santext", rows.get(1)[0]);
    // The CSV, the log and the page state the same AUCs (the attack itself is checked against models that
    // do and do not leak in udfs' MembershipInferenceTest).
    double rawAuc = Double.parseDouble(rows.get(0)[5]);
    double santextAuc = Double.parseDouble(rows.get(1)[5]);
    java.util.regex.Matcher logged = java.util.regex.Pattern.compile("mia: raw-text model, attack AUC \\[([0-9.]+)]")
        .matcher(run.err());
    assertTrue(logged.find(), run.err());
    assertEquals(Double.parseDouble(logged.group(1)), rawAuc, 5e-7, "the log's raw AUC and the CSV's");
    assertTrue(run.err().contains(String.format(Locale.ROOT, "(nominal ε=1.0): attack AUC %.4f", santextAuc)),
        santextAuc + " in " + run.err());
    assertTrue(Files.readString(out.resolve("index.html"))
        .contains(String.format(Locale.ROOT, "the raw-text model's attack AUC %.4f", rawAuc)), "the page's raw AUC");
    assertNotNull(ImageIO.read(out.resolve("mia-auc.png").toFile()));
  }

  /** The data rows of a CSV the commands wrote, split on the commas outside double quotes (specs are quoted). */
  static List<String[]> csv(Path file) throws IOException {
    List<String[]> rows = new ArrayList<>();
    List<String> lines = Files.readAllLines(file);
    for (String line : lines.subList(1, lines.size())) {
      rows.add(line.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1));
    }
    return rows;
  }
}
