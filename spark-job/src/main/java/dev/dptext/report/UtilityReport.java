package dev.dptext.report;

import dev.dptext.evaluation.ConfidenceInterval;
import dev.dptext.evaluation.DownstreamUtility;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The downstream-utility part of the evaluation report: every trial as CSV and JSON, the mean and
 * 95 % confidence interval per (mechanism, ε, test setting) as CSV, one PNG per test setting and
 * score (accuracy, AUC) against the grid's ε with the raw-text baseline, and the HTML page with the
 * tables and the command.
 */
public final class UtilityReport {
  private UtilityReport() {}

  /** Files written, relative to the report directory. */
  public static final String TRIALS_CSV = "utility-trials.csv";
  public static final String TRIALS_JSON = "utility-trials.json";
  public static final String SUMMARY_CSV = "utility-summary.csv";

  /** The mean and interval of one (mechanism, nominal ε, test setting) over its trials. */
  public record Cell(String mechanism, String spec, double nominalEpsilon, double epsilon, String testText,
      ConfidenceInterval accuracy, ConfidenceInterval auc) {}

  /**
   * A cell's curve: its mechanism's name, or, when the sweep ran the mechanism with other parameters too
   * (1-diffractor with each noise kind), its spec without ε, so that each configuration is a curve of its own.
   */
  static String seriesName(Cell c, List<Cell> cells) {
    long configurations = cells.stream().filter(o -> o.mechanism().equals(c.mechanism()))
        .map(o -> withoutEpsilon(o.spec())).distinct().count();
    return configurations < 2 ? c.mechanism() : withoutEpsilon(c.spec());
  }

  private static String withoutEpsilon(String spec) {
    return spec.replaceFirst("epsilon=[^,]*,?", "").replaceFirst("[:,]$", "");
  }

  /** Groups the trials into cells, in the order the sweep produced them. */
  public static List<Cell> summarise(List<DownstreamUtility.Result> results) {
    Map<String, List<DownstreamUtility.Result>> groups = new LinkedHashMap<>();
    for (DownstreamUtility.Result r : results) {
      groups.computeIfAbsent(r.spec() + "|" + r.nominalEpsilon() + "|" + r.testText(), k -> new ArrayList<>()).add(r);
    }
    List<Cell> cells = new ArrayList<>();
    for (List<DownstreamUtility.Result> g : groups.values()) {
      DownstreamUtility.Result first = g.get(0);
      cells.add(new Cell(first.mechanism(), first.spec(), first.nominalEpsilon(), first.epsilon(), first.testText(),
          ConfidenceInterval.ofScore(g.stream().mapToDouble(DownstreamUtility.Result::accuracy).toArray()),
          ConfidenceInterval.ofScore(g.stream().mapToDouble(DownstreamUtility.Result::auc).toArray())));
    }
    return cells;
  }

  /**
   * Writes the report's utility files into {@code dir} and its section onto {@code page}.
   *
   * @param context what the run was (data, sizes, model), one sentence per entry, for the page
   * @param xLabel the plots' ε axis (which scale the grid is on)
   */
  public static void write(Path dir, ReportPage page, List<DownstreamUtility.Result> results,
      DownstreamUtility.Score baseline, List<String> context, String xLabel, String command) throws IOException {
    Files.createDirectories(dir);
    List<Cell> cells = summarise(results);
    StringBuilder trials = new StringBuilder("mechanism,spec,nominal_epsilon,epsilon,trial,test_text,accuracy,auc\n");
    StringBuilder json = new StringBuilder("[\n");
    for (int i = 0; i < results.size(); i++) {
      DownstreamUtility.Result r = results.get(i);
      trials.append(String.format(Locale.ROOT, "%s,%s,%s,%s,%d,%s,%.6f,%.6f%n", r.mechanism(), quoted(r.spec()),
          r.nominalEpsilon(), r.epsilon(), r.trial(), r.testText(), r.accuracy(), r.auc()));
      json.append(String.format(Locale.ROOT, "  {\"mechanism\": \"%s\", \"spec\": \"%s\", \"nominalEpsilon\": %s, "
          + "\"epsilon\": %s, \"trial\": %d, \"testText\": \"%s\", \"accuracy\": %.6f, \"auc\": %.6f}%s%n",
          r.mechanism(), r.spec(), r.nominalEpsilon(), r.epsilon(), r.trial(), r.testText(), r.accuracy(), r.auc(),
          i + 1 < results.size() ? "," : ""));
    }
    json.append("]\n");
    StringBuilder summary = new StringBuilder("mechanism,spec,nominal_epsilon,epsilon,test_text,trials,"
        + "accuracy_mean,accuracy_ci_low,accuracy_ci_high,auc_mean,auc_ci_low,auc_ci_high\n");
    summary.append(String.format(Locale.ROOT, "raw,raw,,,clean,1,%.6f,,,%.6f,,%n", baseline.accuracy(), baseline.auc()));
    for (Cell c : cells) {
      summary.append(String.format(Locale.ROOT, "%s,%s,%s,%s,%s,%d,%.6f,%s,%s,%.6f,%s,%s%n", c.mechanism(),
          quoted(c.spec()), c.nominalEpsilon(), c.epsilon(), c.testText(), c.accuracy().trials(), c.accuracy().mean(),
          end(c.accuracy().low()), end(c.accuracy().high()), c.auc().mean(), end(c.auc().low()), end(c.auc().high())));
    }
    Files.writeString(dir.resolve(TRIALS_CSV), trials, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve(TRIALS_JSON), json, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve(SUMMARY_CSV), summary, StandardCharsets.UTF_8);

    page.heading("Downstream utility");
    context.forEach(page::paragraph);
    for (String setting : List.of(DownstreamUtility.CLEAN, DownstreamUtility.SANITIZED)) {
      for (String score : List.of("accuracy", "AUC")) {
        String png = "utility-" + score.toLowerCase(Locale.ROOT) + "-" + setting + "-test.png";
        LineChart chart = new LineChart(score + " of a classifier trained on sanitized text, " + setting + " test text",
            xLabel, score).tickAtEachX().yRange(0.4, 1.0)
            .baseline("raw text", score.equals("AUC") ? baseline.auc() : baseline.accuracy());
        Map<String, List<Cell>> bySpec = new LinkedHashMap<>();
        cells.stream().filter(c -> c.testText().equals(setting))
            .forEach(c -> bySpec.computeIfAbsent(seriesName(c, cells), k -> new ArrayList<>()).add(c));
        bySpec.values().forEach(list -> list.sort(java.util.Comparator.comparingDouble(Cell::nominalEpsilon)));
        bySpec.forEach((mechanism, list) -> chart.add(new LineChart.Series(mechanism,
            list.stream().mapToDouble(Cell::nominalEpsilon).toArray(),
            list.stream().mapToDouble(c -> pick(c, score).mean()).toArray(),
            list.stream().mapToDouble(c -> pick(c, score).low()).toArray(),
            list.stream().mapToDouble(c -> pick(c, score).high()).toArray())));
        chart.writePng(dir.resolve(png), 1000, 560);
        page.figure(png, score + " against ε, " + setting + " test text: mean and 95 % confidence interval over "
            + "the trials; dashed: the raw-text model");
      }
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("raw text", "", "", "clean", String.format(Locale.ROOT, "%.4f", baseline.accuracy()), "",
        String.format(Locale.ROOT, "%.4f", baseline.auc()), ""));
    for (Cell c : cells) {
      rows.add(List.of(c.spec(), fmt(c.nominalEpsilon()), fmt(c.epsilon()), c.testText(),
          String.format(Locale.ROOT, "%.4f", c.accuracy().mean()), ci(c.accuracy()),
          String.format(Locale.ROOT, "%.4f", c.auc().mean()), ci(c.auc())));
    }
    page.table(List.of("mechanism", "ε (grid)", "ε (matched)", "test text", "accuracy", "95 % CI", "AUC", "95 % CI"),
        rows);
    page.link(SUMMARY_CSV, "the table as CSV").link(TRIALS_CSV, "every trial as CSV")
        .link(TRIALS_JSON, "every trial as JSON");
    page.paragraph("Produced by:").command(command);
  }

  /** A CSV field in double quotes (spec strings hold commas). */
  private static String quoted(String field) {
    return "\"" + field.replace("\"", "\"\"") + "\"";
  }

  private static ConfidenceInterval pick(Cell c, String score) {
    return score.equals("AUC") ? c.auc() : c.accuracy();
  }

  /** An interval end for the CSV: empty when there is none (one trial). */
  private static String end(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6f", v);
  }

  private static String ci(ConfidenceInterval ci) {
    return Double.isNaN(ci.halfWidth()) ? "" : String.format(Locale.ROOT, "[%.4f, %.4f]", ci.low(), ci.high());
  }

  private static String fmt(double v) {
    return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
  }
}
