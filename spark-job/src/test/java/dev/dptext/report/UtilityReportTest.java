package dev.dptext.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.evaluation.ConfidenceInterval;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The utility charts draw one curve per configuration: a mechanism run with two settings is two curves. */
class UtilityReportTest {
  static UtilityReport.Cell cell(String mechanism, String spec) {
    ConfidenceInterval ci = ConfidenceInterval.ofScore(new double[] {0.5, 0.6});
    return new UtilityReport.Cell(mechanism, spec, 4, 4, "clean", ci, ci);
  }

  @Test
  void aMechanismWithTwoConfigurationsIsTwoCurves() {
    List<UtilityReport.Cell> cells = List.of(cell("santext", "santext:epsilon=4.0"),
        cell("santext", "santext:epsilon=8.0"),
        cell("1-diffractor", "1-diffractor:epsilon=0.01,listNoise=geometric,listRadius=5,lists=1"),
        cell("1-diffractor", "1-diffractor:epsilon=5.6,listNoise=tem,listRadius=5,lists=1"));
    assertEquals("santext", UtilityReport.seriesName(cells.get(1), cells));
    assertEquals("1-diffractor:listNoise=geometric,listRadius=5,lists=1", UtilityReport.seriesName(cells.get(2), cells));
    assertEquals("1-diffractor:listNoise=tem,listRadius=5,lists=1", UtilityReport.seriesName(cells.get(3), cells));
  }
}
