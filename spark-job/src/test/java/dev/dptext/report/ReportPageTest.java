package dev.dptext.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's two building blocks: a chart that is a real PNG, a page that escapes what it shows. */
class ReportPageTest {
  @TempDir Path tmp;

  @Test
  void aChartIsAPngOfTheRequestedSizeWithItsLinesDrawn() throws Exception {
    Path png = tmp.resolve("utility.png");
    new LineChart("Accuracy against ε", "ε", "accuracy").logX()
        .add(LineChart.Series.symmetric("laplace", new double[] {1, 2, 4}, new double[] {0.6, 0.7, 0.8},
            new double[] {0.02, 0.02, 0.01}))
        .add(LineChart.Series.symmetric("santext", new double[] {1, 2, 4}, new double[] {0.55, 0.65, 0.82}, null))
        .baseline("raw text", 0.86)
        .writePng(png, 800, 500);
    BufferedImage image = ImageIO.read(png.toFile());
    assertEquals(800, image.getWidth());
    assertEquals(500, image.getHeight());
    // Drawn, not blank: more than a handful of distinct colours (lines, legend, axes).
    java.util.Set<Integer> colours = new java.util.HashSet<>();
    for (int x = 0; x < image.getWidth(); x += 3) {
      for (int y = 0; y < image.getHeight(); y += 3) {
        colours.add(image.getRGB(x, y));
      }
    }
    assertTrue(colours.size() > 5, colours.size() + " colours");
  }

  @Test
  void thePageShowsTablesFiguresAndCommandsEscaped() throws Exception {
    Path html = tmp.resolve("index.html");
    new ReportPage("dptext <evaluation>").heading("Utility").figure("utility.png", "accuracy & ε")
        .table(List.of("mechanism", "accuracy"), List.of(List.of("santext+", "0.81")))
        .command("dptext evaluate utility --input \"a b\"").write(html);
    String text = Files.readString(html);
    assertTrue(text.contains("<title>dptext &lt;evaluation&gt;</title>"), text);
    assertTrue(text.contains("<img src=\"utility.png\""), text);
    assertTrue(text.contains("<td>santext+</td><td>0.81</td>"), text);
    assertTrue(text.contains("--input &quot;a b&quot;"), text);
    assertFalse(text.contains("<evaluation>"), text);
  }

  /**
   * A regression: the ε axis lacked a tick at 16 (a log axis labels 1–9 × 10^n), and with one ε the raw-text
   * line, though in the legend, had no length.
   */
  @Test
  void theEpsilonAxisHasATickAtEachEpsilonAndOneEpsilonStillGetsTheBaseline() throws Exception {
    LineChart grid = new LineChart("Accuracy", "ε", "accuracy").tickAtEachX()
        .add(LineChart.Series.symmetric("laplace", new double[] {4, 8, 16, 32}, new double[] {0.6, 0.7, 0.8, 0.85},
            new double[] {0.02, 0.02, 0.01, 0.01}))
        .add(LineChart.Series.symmetric("santext", new double[] {3}, new double[] {0.7}, null))
        .baseline("raw text", 0.86);
    grid.writePng(tmp.resolve("grid.png"), 800, 500);
    assertEquals(List.of("3", "4", "8", "16", "32"), grid.xTickLabels());
    LineChart one = new LineChart("Accuracy", "ε", "accuracy").tickAtEachX()
        .add(LineChart.Series.symmetric("laplace", new double[] {16}, new double[] {0.6}, new double[] {0.02}))
        .baseline("raw text", 0.86);
    one.writePng(tmp.resolve("one.png"), 800, 500);
    assertEquals(List.of("16"), one.xTickLabels());
    double[] range = one.baselineRange();
    assertTrue(range[1] - range[0] > 0.5, "the raw-text line spans the one ε: " + java.util.Arrays.toString(range));
    LineChart log = new LineChart("E_M", "ε", "E_M").logX()
        .add(LineChart.Series.symmetric("laplace", new double[] {2}, new double[] {0.6}, null)).baseline("raw", 0.5);
    log.writePng(tmp.resolve("log.png"), 800, 500);
    assertTrue(log.baselineRange()[1] > log.baselineRange()[0]);
  }

  /** A regression: the page's "produced by" dropped the quotes, so the command could not be pasted back. */
  @Test
  void theProducedByCommandKeepsItsQuoting() throws Exception {
    String line = ReportPage.shellCommand(List.of("dptext", "evaluate", "utility", "--epsilons",
        "santext=1,3;laplace=5,10", "--mechanisms", "santext laplace", "--input", "it's.csv", "--trials", "2"));
    assertEquals("dptext evaluate utility --epsilons 'santext=1,3;laplace=5,10' --mechanisms 'santext laplace' "
        + "--input 'it'\\''s.csv' --trials 2", line);
    // What a POSIX shell reads back.
    Process p = new ProcessBuilder("sh", "-c", "for a in " + line.substring("dptext ".length())
        + "; do printf '%s\\n' \"$a\"; done").start();
    assertEquals(List.of("evaluate", "utility", "--epsilons", "santext=1,3;laplace=5,10", "--mechanisms",
        "santext laplace", "--input", "it's.csv", "--trials", "2"),
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList());
  }

  /** A regression: the intervals of accuracy and AUC ran past [0, 1] (Laplace [.37, 1.17]). */
  @Test
  void scoreIntervalsStayInsideZeroAndOne() throws Exception {
    List<dev.dptext.evaluation.DownstreamUtility.Result> results = new java.util.ArrayList<>();
    double[] accuracy = {1.0, 0.55, 0.95};
    for (int t = 0; t < 3; t++) {
      for (String test : List.of("clean", "sanitized")) {
        results.add(new dev.dptext.evaluation.DownstreamUtility.Result("laplace", "laplace:epsilon=16", 16, 16, t,
            test, accuracy[t], accuracy[t]));
      }
    }
    UtilityReport.write(tmp, new ReportPage("t"), results, new dev.dptext.evaluation.DownstreamUtility.Score(0.9, 0.95),
        List.of(), "ε", "dptext evaluate utility");
    List<String> lines = Files.readAllLines(tmp.resolve(UtilityReport.SUMMARY_CSV));
    String[] cell = lines.get(2).split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1);
    double low = Double.parseDouble(cell[7]);
    double high = Double.parseDouble(cell[8]);
    assertTrue(low >= 0 && high <= 1 && low < high, lines.get(2));
    assertEquals(1.0, high, 1e-12, "the t interval (about [0.33, 1.34]) clipped to [0, 1]");
  }
}
