package io.sluice.lab.demo;

import java.util.Locale;
import java.util.Map;

/**
 * Line charts as inline SVG: no script, no library, so the report opens anywhere, offline, and a
 * headless browser renders it exactly. One chart: series over whole seconds, an optional dashed
 * reference line (the configured leak rate), axes with a few round ticks, and a legend.
 */
final class SvgChart {
  private static final int W = 760;
  private static final int H = 260;
  private static final int LEFT = 56;
  private static final int RIGHT = 150;
  private static final int TOP = 30;
  private static final int BOTTOM = 40;

  private SvgChart() {}

  /**
   * @param id        the svg element's id (tests look for it)
   * @param series    name to one value per second, drawn in the given colours
   * @param reference a dashed horizontal line and its label, or null
   */
  static String lines(String id, String title, String yLabel, Map<String, double[]> series,
      Map<String, String> colours, Double reference, String referenceLabel) {
    int n = 0;
    double max = reference == null ? 0 : reference;
    for (double[] s : series.values()) {
      n = Math.max(n, s.length);
      for (double v : s) {
        max = Math.max(max, v);
      }
    }
    max = niceCeiling(Math.max(1, max * 1.1));
    int plotW = W - LEFT - RIGHT;
    int plotH = H - TOP - BOTTOM;
    double xScale = n <= 1 ? plotW : plotW / (double) (n - 1);
    double yScale = plotH / max;
    StringBuilder svg = new StringBuilder();
    svg.append(String.format(Locale.ROOT,
        "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            + "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">%n",
        id, W, H, W, H, escape(title)));
    svg.append(String.format(Locale.ROOT,
        "<text x=\"%d\" y=\"18\" class=\"title\">%s</text>%n", LEFT, escape(title)));
    // Axes and ticks.
    svg.append(String.format(Locale.ROOT,
        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>%n",
        LEFT, TOP + plotH, LEFT + plotW, TOP + plotH));
    svg.append(String.format(Locale.ROOT,
        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>%n",
        LEFT, TOP, LEFT, TOP + plotH));
    for (int i = 0; i <= 4; i++) {
      double v = max * i / 4;
      double y = TOP + plotH - v * yScale;
      svg.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
              + "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>%n",
          LEFT, y, LEFT + plotW, y, LEFT - 6, y + 4, round(v)));
    }
    int step = Math.max(1, niceStep(n / 8.0));
    for (int s = 0; s < n; s += step) {
      double x = LEFT + s * xScale;
      svg.append(String.format(Locale.ROOT,
          "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%ds</text>%n",
          x, TOP + plotH + 16, s));
    }
    svg.append(String.format(Locale.ROOT,
        "<text x=\"%d\" y=\"%d\" class=\"tick\">%s</text>%n", LEFT, H - 6, escape(yLabel)));
    if (reference != null) {
      double y = TOP + plotH - reference * yScale;
      svg.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"reference\"/>"
              + "<text x=\"%d\" y=\"%.1f\" class=\"legend\">%s</text>%n",
          LEFT, y, LEFT + plotW, y, LEFT + 6, y - 5, escape(referenceLabel)));
    }
    int legendY = TOP + 8;
    for (Map.Entry<String, double[]> s : series.entrySet()) {
      String colour = colours.getOrDefault(s.getKey(), "#444");
      StringBuilder points = new StringBuilder();
      double[] values = s.getValue();
      for (int i = 0; i < values.length; i++) {
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + i * xScale,
            TOP + plotH - values[i] * yScale));
      }
      svg.append(String.format(Locale.ROOT,
          "<polyline class=\"series\" data-series=\"%s\" fill=\"none\" stroke=\"%s\" "
              + "stroke-width=\"2\" points=\"%s\"/>%n",
          escape(s.getKey()), colour, points.toString().trim()));
      svg.append(String.format(Locale.ROOT,
          "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"4\" fill=\"%s\"/>"
              + "<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>%n",
          LEFT + plotW + 8, legendY + 20, colour, LEFT + plotW + 24, legendY + 26,
          escape(s.getKey())));
      legendY += 18;
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static double niceCeiling(double v) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * magnitude >= v) {
        return m * magnitude;
      }
    }
    return 10 * magnitude;
  }

  private static int niceStep(double v) {
    for (int s : new int[] {1, 2, 5, 10, 15, 30, 60, 120, 300}) {
      if (s >= v) {
        return s;
      }
    }
    return 600;
  }

  private static String round(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
