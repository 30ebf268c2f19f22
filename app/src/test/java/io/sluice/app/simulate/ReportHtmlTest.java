package io.sluice.app.simulate;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Names on the page come from files an operator did not write: none of them may become markup. */
class ReportHtmlTest {
  private static final String HOSTILE = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>&amp;";

  @Test
  @DisplayName("a hostile tenant id, tier, provider and label are escaped everywhere on the page")
  void shouldEscapeEveryNameFromTheInput() {
    Tally t = new Tally();
    t.called(1500);
    Simulation.Outcome o = new Simulation.Outcome(1, Map.of(HOSTILE, t), Map.of(HOSTILE, t),
        Map.of(HOSTILE, new ProviderTally(4)), new Tally(), 1_500_000);
    Simulator.Report report = new Simulator.Report(List.of(new Simulator.Run(HOSTILE, o)), 1, false, 1);

    String page = ReportHtml.of(report, 10);
    assertFalse(page.contains("<script"), "no script element");
    assertFalse(page.contains("<img"), "no injected element");
    assertFalse(page.contains("'x'"), "no raw quote");
    assertTrue(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img"), "the id is shown, escaped");
    assertTrue(page.contains("&amp;amp;"), "an entity in a name is shown as written, not read as one");
    assertTrue(page.contains("<svg") && page.contains("<rect"), "the plot is there");
  }
}
