package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.ops.PrometheusTextParser.Exposition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PrometheusTextParserTest {

  @Test
  void shouldReadFamiliesSamplesLabelsTimestampsAndComments() {
    Exposition e = PrometheusTextParser.parse("""
        # a free comment
        # HELP http_requests_total The total number of HTTP requests.
        # TYPE http_requests_total counter
        http_requests_total{method="post",code="200"} 1027 1395066363000
        http_requests_total{method="post",code="400",} 3 1395066363000

        # TYPE rpc_duration_seconds summary
        rpc_duration_seconds{quantile="0.5"} 4773
        rpc_duration_seconds_sum 1.7560473e+07
        rpc_duration_seconds_count 2693
        metric_without_type +Inf
        """);

    assertEquals(3, e.families().size());
    assertEquals("The total number of HTTP requests.", e.family("http_requests_total").orElseThrow().help());
    assertEquals(3, e.value("http_requests_total", "method", "post", "code", "400").getAsDouble());
    assertEquals(1.7560473e7, e.value("rpc_duration_seconds_sum").getAsDouble());
    assertEquals(3, e.family("rpc_duration_seconds").orElseThrow().samples().size());
    assertEquals("untyped", e.family("metric_without_type").orElseThrow().type());
    assertTrue(Double.isInfinite(e.value("metric_without_type").getAsDouble()));
  }

  @Test
  void shouldReadEmptyTextAsNoFamilies() {
    assertTrue(PrometheusTextParser.parse("").families().isEmpty());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "x 1",                                                   // no final line feed
      "x 1 \n",                                                // trailing blank
      "x\n",                                                   // no value
      "x one\n",                                               // not a number
      "x 1 12.5\n",                                            // timestamp not an integer
      "x{a=\"1\",a=\"2\"} 1\n",                                 // label twice
      "x{a=\"\\t\"} 1\n",                                       // unknown escape
      "x{a=\"1\" 1\n",                                          // unterminated labels
      "x 1\nx 2\n",                                             // same series twice
      "# TYPE x gauge\n# TYPE x gauge\nx 1\n",                  // TYPE twice
      "# HELP x a\n# HELP x b\nx 1\n",                          // HELP twice
      "x 1\n# TYPE x gauge\n",                                  // TYPE after samples
      "# TYPE x meter\nx 1\n",                                  // unknown type
      "x{a=\"1\"} 1\ny 1\nx{a=\"2\"} 1\n",                       // family not contiguous
      "# TYPE s summary\ns 1\n",                                // summary sample without quantile
      "# TYPE h histogram\nh_bucket 1\n",                       // bucket without le
      "# TYPE c counter\nc -1\n",                               // negative counter
  })
  void shouldRefuseInvalidExpositions(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PrometheusTextParser.parse(text));
    assertTrue(e.getMessage().startsWith("line ") || e.getMessage().contains("line feed"), e.getMessage());
  }
}
