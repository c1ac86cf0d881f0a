package dev.dptext.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * One figure of the evaluation report: a line per mechanism, each point with its 95 % confidence
 * interval as a vertical bar from its low to its high end when it has one (intervals may be asymmetric,
 * e.g. clipped to [0, 1]), and an optional horizontal baseline (the raw-text model) across the whole x
 * range, also when there is only one x. Written as a PNG with XChart (headless AWT).
 */
public final class LineChart {
  /** One line: points (x, y) with an optional interval [low, high] per point (null: none). */
  public record Series(String name, double[] x, double[] y, double[] low, double[] high) {
    public Series {
      if (x.length != y.length || (low == null) != (high == null)
          || (low != null && (low.length != x.length || high.length != x.length))) {
        throw new IllegalStateException("series " + name + ": x, y and interval ends differ in length");
      }
    }

    /** A symmetric interval y ± halfWidth (null: none). */
    public static Series symmetric(String name, double[] x, double[] y, double[] halfWidth) {
      if (halfWidth == null) {
        return new Series(name, x, y, null, null);
      }
      double[] low = new double[y.length];
      double[] high = new double[y.length];
      for (int i = 0; i < y.length; i++) {
        low[i] = y[i] - halfWidth[i];
        high[i] = y[i] + halfWidth[i];
      }
      return new Series(name, x, y, low, high);
    }
  }

  /** Line colours, one per series in order (XChart's default palette, which the interval bars repeat). */
  private static final Color[] COLOURS = {new Color(0, 114, 178), new Color(213, 94, 0), new Color(0, 158, 115),
      new Color(204, 121, 167), new Color(86, 180, 233), new Color(230, 159, 0), new Color(120, 94, 240),
      new Color(100, 100, 100)};

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final List<Series> series = new ArrayList<>();
  private boolean logX;
  private boolean tickPerX;
  private double yMin = Double.NaN;
  private double yMax = Double.NaN;
  private String baselineName;
  private double baseline = Double.NaN;
  private final java.util.SortedMap<Long, String> xTickLabels = new java.util.TreeMap<>();
  private double[] baselineX;

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

  /**
   * One tick, labelled, at every x the series use (an ε grid): the x values are placed at equal steps in
   * their order, which is a logarithmic axis for a doubling grid (4, 8, 16, 32); a log axis labels only
   * 1–9 × 10^n and would skip 16 and 32.
   */
  public LineChart tickAtEachX() {
    this.tickPerX = true;
    return this;
  }

  /** Fixes the y axis. */
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

  /** The labels of the x ticks of the last {@link #writePng} (with {@link #tickAtEachX}; blank ones left out). */
  public List<String> xTickLabels() {
    return List.copyOf(xTickLabels.values());
  }

  /** The x range, in the chart's coordinates, of the baseline the last {@link #writePng} drew (null: none). */
  public double[] baselineRange() {
    return baselineX == null ? null : baselineX.clone();
  }

  /** Writes the chart as a PNG of {@code width}×{@code height} pixels. */
  public void writePng(Path file, int width, int height) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(xLabel)
        .yAxisTitle(yLabel).build();
    TreeSet<Double> xs = new TreeSet<>();
    series.forEach(s -> java.util.Arrays.stream(s.x()).forEach(xs::add));
    double[] positions = xs.stream().mapToDouble(Double::doubleValue).toArray();
    xTickLabels.clear();
    if (tickPerX && positions.length > 0) {
      // The labels are the grid's values at their ranks; any other tick (the baseline's ends) stays blank.
      // One x sits at position 1 between blank ticks at 0 and 2 (the baseline's ends), so that it has a tick.
      double shift = positions.length == 1 ? 1 : 0;
      chart.getStyler().setxAxisTickLabelsFormattingFunction(v -> {
        long rank = Math.round(v - shift);
        if (Math.abs(v - shift - rank) > 1e-9 || rank < 0 || rank >= positions.length) {
          // Blank, but not the same blank at both ends: XChart thins out the ticks when the labels of the
          // axis' two ends are equal.
          return v < shift ? " " : "  ";
        }
        String label = format(positions[(int) rank]);
        xTickLabels.put(rank, label);
        return label;
      });
    } else {
      chart.getStyler().setXAxisLogarithmic(logX);
      // ε grids double (4, 8, 16, 32): label 1–9 × 10^n, not only the decades, or one label shows.
      chart.getStyler().setXAxisLogarithmicDecadeOnly(false);
    }
    if (!Double.isNaN(yMin)) {
      chart.getStyler().setYAxisMin(yMin);
      chart.getStyler().setYAxisMax(yMax);
    }
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotGridLinesVisible(true);
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    int index = 0;
    for (Series s : series) {
      Color colour = COLOURS[index++ % COLOURS.length];
      double[] x = tickPerX ? ranks(s.x(), positions, positions.length == 1 ? 1 : 0) : s.x();
      XYSeries line = chart.addSeries(s.name(), x, s.y());
      line.setMarker(SeriesMarkers.CIRCLE);
      line.setLineColor(colour);
      line.setMarkerColor(colour);
      if (s.low() != null) {
        for (int i = 0; i < x.length; i++) {
          if (Double.isNaN(s.low()[i]) || Double.isNaN(s.high()[i])) {
            continue;
          }
          XYSeries bar = chart.addSeries(s.name() + " interval " + i, new double[] {x[i], x[i]},
              new double[] {s.low()[i], s.high()[i]});
          bar.setShowInLegend(false);
          bar.setMarker(SeriesMarkers.NONE);
          bar.setMarkerColor(colour);
          bar.setLineColor(colour);
          bar.setLineStyle(new BasicStroke(1.2f));
        }
      }
    }
    baselineX = null;
    if (!Double.isNaN(baseline) && positions.length > 0) {
      double from = tickPerX ? 0 : positions[0];
      double to = tickPerX ? positions.length - 1 : positions[positions.length - 1];
      if (from == to) {
        // One x: a line across it (a step each side on a rank axis, a factor of 2 on a log axis).
        from = tickPerX ? 0 : logX ? from / 2 : from - 1;
        to = tickPerX ? 2 : logX ? to * 2 : to + 1;
      }
      baselineX = new double[] {from, to};
      XYSeries base = chart.addSeries(baselineName, baselineX, new double[] {baseline, baseline});
      base.setMarker(SeriesMarkers.NONE);
      base.setLineColor(Color.DARK_GRAY);
      base.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  /** Each x's rank among the sorted distinct {@code positions}, plus {@code shift}. */
  private static double[] ranks(double[] x, double[] positions, double shift) {
    double[] out = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = java.util.Arrays.binarySearch(positions, x[i]) + shift;
    }
    return out;
  }

  /** A tick label: up to four significant digits, no trailing zeros (16, 0.5, 11.31). */
  private static String format(double v) {
    return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
  }
}
