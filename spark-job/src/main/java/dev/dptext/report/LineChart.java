package dev.dptext.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * One figure of the evaluation report: a line per mechanism, each point with its 95 % confidence
 * interval as an error bar when it has one, and an optional horizontal baseline (the raw-text
 * model), written as a PNG with XChart (headless AWT).
 */
public final class LineChart {
  /** One line: points (x, y) with an optional symmetric half-width per point (null: none). */
  public record Series(String name, double[] x, double[] y, double[] halfWidth) {
    public Series {
      if (x.length != y.length || (halfWidth != null && halfWidth.length != x.length)) {
        throw new IllegalArgumentException("series " + name + ": x, y and half-widths differ in length");
      }
    }
  }

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final List<Series> series = new ArrayList<>();
  private boolean logX;
  private double yMin = Double.NaN;
  private double yMax = Double.NaN;
  private String baselineName;
  private double baseline = Double.NaN;

  public LineChart(String title, String xLabel, String yLabel) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
  }

  public LineChart add(Series s) {
    if (s.x().length > 0) {
      series.add(s);
    }
    return this;
  }

  /** A logarithmic x axis (ε grids double). */
  public LineChart logX() {
    this.logX = true;
    return this;
  }

  /** Fixes the y axis (scores in [0, 1] with intervals that may reach past them). */
  public LineChart yRange(double min, double max) {
    this.yMin = min;
    this.yMax = max;
    return this;
  }

  /** A horizontal reference line, e.g. the raw-text baseline's accuracy. */
  public LineChart baseline(String name, double value) {
    this.baselineName = name;
    this.baseline = value;
    return this;
  }

  public List<Series> series() {
    return List.copyOf(series);
  }

  /** Writes the chart as a PNG of {@code width}×{@code height} pixels. */
  public void writePng(Path file, int width, int height) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(xLabel)
        .yAxisTitle(yLabel).build();
    chart.getStyler().setXAxisLogarithmic(logX);
    // ε grids double (4, 8, 16, 32): label 1–9 × 10^n, not only the decades, or one label shows.
    chart.getStyler().setXAxisLogarithmicDecadeOnly(false);
    if (!Double.isNaN(yMin)) {
      chart.getStyler().setYAxisMin(yMin);
      chart.getStyler().setYAxisMax(yMax);
    }
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotGridLinesVisible(true);
    chart.getStyler().setErrorBarsColorSeriesColor(true);
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    double minX = Double.POSITIVE_INFINITY;
    double maxX = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      XYSeries line = s.halfWidth() == null
          ? chart.addSeries(s.name(), s.x(), s.y())
          : chart.addSeries(s.name(), s.x(), s.y(), s.halfWidth());
      line.setMarker(SeriesMarkers.CIRCLE);
      for (double x : s.x()) {
        minX = Math.min(minX, x);
        maxX = Math.max(maxX, x);
      }
    }
    if (!Double.isNaN(baseline) && minX <= maxX) {
      XYSeries base = chart.addSeries(baselineName, new double[] {minX, maxX}, new double[] {baseline, baseline});
      base.setMarker(SeriesMarkers.NONE);
      base.setLineColor(Color.DARK_GRAY);
      base.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
