package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.ScriptHeader;
import io.sluice.gate.limiter.QuotaRulesScript.Answer;
import io.sluice.gate.limiter.QuotaRulesScript.Arg;
import io.sluice.gate.limiter.QuotaRulesScript.BucketArg;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link QuotaRulesScript}'s names and positions are the ones {@code quota_rules.lua}'s header
 * states for one event (its positions are relative: {@code ARGV[a + 1]} is the event's first).
 */
class QuotaRulesScriptHeaderTest {
  private static final ScriptHeader HEADER = ScriptHeader.of(QuotaRulesScript.load().text());

  @Test
  @DisplayName("an event's arguments are ARGV[a + 1 .. a + 5]: n, need, want, hold_us, then the lease to release")
  void arguments() {
    for (Arg arg : Arg.values()) {
      ScriptHeader.Line line = HEADER.argvAt("a + " + (arg.ordinal() + 1));
      String name = arg.name().toLowerCase(Locale.ROOT);
      String first = line.name().replaceAll("[,:]$", "");
      assertTrue(first.equals(name) || (" " + line.text() + " ").contains(" " + name + " "),
          "ARGV[a + " + (arg.ordinal() + 1) + "] is written \"" + line.name() + " " + line.text()
              + "\", not " + name);
    }
  }

  @Test
  @DisplayName("bucket i's arguments follow: capacity at ARGV[a + 2 * i + 4], refill at ARGV[a + 2 * i + 5]")
  void bucketArguments() {
    for (int i = 1; i <= 3; i++) {
      int capacity = Arg.values().length + BucketArg.values().length * (i - 1) + BucketArg.CAPACITY.ordinal() + 1;
      assertEquals(2 * i + 4, capacity, "bucket " + i + "'s capacity, after the event's own arguments");
    }
    assertTrue(HEADER.writes("ARGV[a + 2 * i + 4], ARGV[a + 2 * i + 5] "
        + BucketArg.CAPACITY.name().toLowerCase(Locale.ROOT) + " and "
        + BucketArg.REFILL.name().toLowerCase(Locale.ROOT)));
  }

  @Test
  @DisplayName("an event's answers are {granted, now_us, wait_us, lease_units, lease_end_us, lease_id, level_1, ...}")
  void answers() {
    String names = Arrays.stream(Answer.values()).map(a -> a.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(", "));
    assertTrue(HEADER.writes("{" + names + ", level_1, ..."), "the header's Returns is not {" + names + ", level_1, ...}");
  }
}
