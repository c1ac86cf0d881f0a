package dev.dptext.report;

import dev.dptext.evaluation.EmpiricalPrivacy;
import dev.dptext.evaluation.Tuner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The empirical-privacy part of the report: every setting the tuner evaluated as CSV, E_M and L_M
 * against ε, and E_M against L_M per mechanism (the trade-off curve the Vickrey paper plots), each
 * Monte Carlo point with its 95 % interval (1.96 standard errors).
 */
public final class EmpiricalPrivacyReport {
  private EmpiricalPrivacyReport() {}

  public static final String POINTS_CSV = "tune-points.csv";

  public static void write(Path dir, ReportPage page, List<Tuner.Outcome> outcomes, String summary, String command)
      throws IOException {
    StringBuilder csv = new StringBuilder("mechanism,spec,epsilon,inference_error,bayes_error,utility_loss,"
        + "inference_error_se,bayes_error_se,utility_loss_se,draws,exact\n");
    for (Tuner.Outcome o : outcomes) {
      for (EmpiricalPrivacy.Result r : o.points()) {
        csv.append(String.format(Locale.ROOT, "%s,\"%s\",%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%s%n", o.mechanism(),
            r.spec().toSpecString(), r.spec().epsilon(), r.inferenceError(), r.bayesError(), r.utilityLoss(),
            r.inferenceErrorSe(), r.bayesErrorSe(), r.utilityLossSe(), r.draws(), r.exact()));
      }
    }
    Files.writeString(dir.resolve(POINTS_CSV), csv, StandardCharsets.UTF_8);
    page.heading("Empirical privacy and utility loss");
    page.command(summary);
    chart(dir, page, outcomes, "tune-inference-error.png", "E_M (expected inference error of the Bayesian adversary) "
        + "against ε", "ε", "E_M", true, r -> r.spec().epsilon(), EmpiricalPrivacy.Result::inferenceError,
        EmpiricalPrivacy.Result::inferenceErrorSe, true);
    chart(dir, page, outcomes, "tune-utility-loss.png", "L_M (expected share of changed word labels) against ε",
        "ε", "L_M", true, r -> r.spec().epsilon(), EmpiricalPrivacy.Result::utilityLoss,
        EmpiricalPrivacy.Result::utilityLossSe, true);
    chart(dir, page, outcomes, "tune-tradeoff.png", "E_M against L_M: privacy kept for the utility lost "
        + "(every evaluated setting)", "L_M", "E_M", false, EmpiricalPrivacy.Result::utilityLoss,
        EmpiricalPrivacy.Result::inferenceError, EmpiricalPrivacy.Result::inferenceErrorSe, false);
    List<List<String>> rows = new ArrayList<>();
    for (Tuner.Outcome o : outcomes) {
      for (EmpiricalPrivacy.Result r : o.points()) {
        rows.add(List.of(r.spec().describe(), f(r.inferenceError()), f(r.bayesError()), f(r.utilityLoss()),
            r.exact() ? "exact" : r.draws() + " draws"));
      }
    }
    page.table(List.of("setting", "E_M", "Bayes error", "L_M", "f(y|w)"), rows);
    page.link(POINTS_CSV, "every point as CSV");
    page.paragraph("Produced by:").command(command);
  }

  private static void chart(Path dir, ReportPage page, List<Tuner.Outcome> outcomes, String png, String title,
      String x, String y, boolean logX, ToDoubleFunction<EmpiricalPrivacy.Result> fx,
      ToDoubleFunction<EmpiricalPrivacy.Result> fy, ToDoubleFunction<EmpiricalPrivacy.Result> se,
      boolean doublingOnly) throws IOException {
    LineChart chart = new LineChart(title, x, y);
    if (logX) {
      chart.logX();
    }
    for (Tuner.Outcome o : outcomes) {
      List<EmpiricalPrivacy.Result> points = new ArrayList<>(o.points());
      if (doublingOnly) {
        // The doubling phase: one point per ε (a t scan repeats the last ε).
        List<EmpiricalPrivacy.Result> kept = new ArrayList<>();
        for (EmpiricalPrivacy.Result r : points) {
          if (kept.stream().noneMatch(k -> k.spec().epsilon() == r.spec().epsilon())) {
            kept.add(r);
          }
        }
        points = kept;
      }
      points.sort(Comparator.comparingDouble(fx));
      chart.add(LineChart.Series.symmetric(label(o, outcomes), points.stream().mapToDouble(fx).toArray(),
          points.stream().mapToDouble(fy).toArray(), points.stream().mapToDouble(r -> 1.96 * se.applyAsDouble(r)).toArray()));
    }
    chart.writePng(dir.resolve(png), 1000, 560);
    page.figure(png, title);
  }

  /**
   * The series' name: the mechanism's, or, when several outcomes are of one mechanism (1-diffractor with each
   * noise kind, vickrey at two t), its parameters but ε too; the chart needs distinct names.
   */
  private static String label(Tuner.Outcome o, List<Tuner.Outcome> all) {
    if (all.stream().filter(a -> a.mechanism().equals(o.mechanism())).count() < 2 || o.points().isEmpty()) {
      return o.mechanism();
    }
    return o.points().get(0).spec().describe().replaceFirst(" ε=[^,]*,? ?", " ").strip();
  }

  private static String f(double v) {
    return String.format(Locale.ROOT, "%.4f", v);
  }
}
