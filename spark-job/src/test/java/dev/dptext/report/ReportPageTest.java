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
        .add(new LineChart.Series("laplace", new double[] {1, 2, 4}, new double[] {0.6, 0.7, 0.8},
            new double[] {0.02, 0.02, 0.01}))
        .add(new LineChart.Series("santext", new double[] {1, 2, 4}, new double[] {0.55, 0.65, 0.82}, null))
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
}
