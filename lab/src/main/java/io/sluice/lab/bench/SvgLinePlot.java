package io.sluice.lab.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A line plot as a standalone SVG file, written by hand (no plotting dependency): points at
 * evenly spaced categories along x (e.g. 10, 1,000, 100,000 tenants: a log scale in effect), a
 * linear y axis from zero with five gridlines, one polyline with dots per series, and a legend.
 * A missing value (NaN) breaks its line.
 */
final class SvgLinePlot {
  private static final int W = 720;
  private static final int H = 320;
  private static final int LEFT = 70;
  private static final int RIGHT = 170;
  private static final int TOP = 36;
  private static final int BOTTOM = 48;
  private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};

  private SvgLinePlot() {}

  /**
   * @param categories the x labels, left to right
   * @param series     name to one value per category
   */
  static String of(String title, String xLabel, String yLabel, List<String> categories,
      Map<String, double[]> series) {
    double max = 0;
    for (double[] values : series.values()) {
      for (double v : values) {
        if (!Double.isNaN(v)) {
          max = Math.max(max, v);
        }
      }
    }
    max = roundUp(max <= 0 ? 1 : max * 1.1);
    int plotW = W - LEFT - RIGHT;
    int plotH = H - TOP - BOTTOM;
    int n = categories.size();
    double step = n <= 1 ? 0 : plotW / (double) (n - 1);
    StringBuilder svg = new StringBuilder();
    svg.append(f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", W, H, W, H));
    svg.append(f("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", W, H));
    svg.append(f("<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
        LEFT, escape(title)));
    for (int i = 0; i <= 4; i++) {
      double v = max * i / 4;
      double y = TOP + plotH - plotH * i / 4.0;
      svg.append(f("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
          + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
          LEFT, y, LEFT + plotW, y, LEFT - 6, y + 4, BenchReport.cell(v)));
    }
    svg.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
        LEFT, TOP + plotH, LEFT + plotW, TOP + plotH));
    svg.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
        LEFT, TOP, LEFT, TOP + plotH));
    for (int i = 0; i < n; i++) {
      svg.append(f("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
          LEFT + i * step, TOP + plotH + 18, escape(categories.get(i))));
    }
    svg.append(f("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
        LEFT + plotW / 2, H - 8, escape(xLabel)));
    svg.append(f("<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
        + "text-anchor=\"middle\">%s</text>%n", TOP + plotH / 2, TOP + plotH / 2, escape(yLabel)));
    int s = 0;
    for (Map.Entry<String, double[]> e : series.entrySet()) {
      String colour = COLOURS[s % COLOURS.length];
      StringBuilder points = new StringBuilder();
      double[] values = e.getValue();
      for (int i = 0; i < Math.min(n, values.length); i++) {
        if (Double.isNaN(values[i])) {
          flush(svg, points, colour);
          continue;
        }
        double x = LEFT + i * step;
        double y = TOP + plotH - values[i] / max * plotH;
        points.append(f("%.1f,%.1f ", x, y));
        svg.append(f("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", x, y, colour));
      }
      flush(svg, points, colour);
      int ly = TOP + 10 + 20 * s;
      svg.append(f("<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + plotW + 12, ly, colour,
          LEFT + plotW + 30, ly + 5, escape(e.getKey())));
      s++;
    }
    return svg.append("</svg>\n").toString();
  }

  private static void flush(StringBuilder svg, StringBuilder points, String colour) {
    if (points.length() > 0) {
      svg.append(f("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
          colour, points.toString().trim()));
      points.setLength(0);
    }
  }

  /** 1, 2 or 5 times a power of ten, at least {@code v}. */
  static double roundUp(double v) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * magnitude >= v) {
        return m * magnitude;
      }
    }
    return 10 * magnitude;
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
