package io.sluice.dispatcher.leak;

import static io.sluice.testkit.ScriptHeader.positions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.leak.LeakyBucketScript.BusyArg;
import io.sluice.dispatcher.leak.LeakyBucketScript.ClaimAnswer;
import io.sluice.dispatcher.leak.LeakyBucketScript.ClaimArg;
import io.sluice.dispatcher.leak.LeakyBucketScript.ClaimTailArg;
import io.sluice.dispatcher.leak.LeakyBucketScript.LimitArg;
import io.sluice.dispatcher.leak.LeakyBucketScript.SettleArg;
import io.sluice.dispatcher.leak.LeakyBucketScript.SettleLimitArg;
import io.sluice.dispatcher.leak.LeakyBucketScript.ThrottledAnswer;
import io.sluice.dispatcher.leak.LeakyBucketScript.ThrottledArg;
import io.sluice.testkit.ScriptHeader;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link LeakyBucketScript}'s names and positions, mode by mode, are the ones
 * {@code leaky_bucket.lua}'s header states: a renamed, added or reordered argument or answer on
 * either side fails here. Arguments the header writes in prose (a limit's five, a settle's) are
 * held to that prose: the codec's names appear there, in the codec's order.
 */
class LeakyBucketScriptHeaderTest {
  private static final ScriptHeader HEADER = ScriptHeader.of(LeakyBucketScript.load().text());

  @Test
  @DisplayName("a claim's arguments are ARGV[1..10], by name and position")
  void claim() {
    assertEquals(positions(1, ClaimArg.values()), HEADER.argv("claim"));
  }

  @Test
  @DisplayName("a claim's limit i is ARGV[11 + 5(i-1) ..]: kind, amount, per_us, window, margin_us")
  void claimLimit() {
    assertInOrder(HEADER.argvAt("11 + 5(i-1) ..").text(), LimitArg.values());
  }

  @Test
  @DisplayName("after n limits come holds at ARGV[11 + 5n], then total_rate at ARGV[12 + 5n]")
  void claimTail() {
    assertEquals(positions(11, ClaimTailArg.values()), Map.of(
        11, HEADER.argvAt("11 + 5n").name(),
        12, HEADER.argvAt("12 + 5n").name()));
  }

  @Test
  @DisplayName("a 429's report is ARGV[1..6]: the common four, then retry_ms and started_us")
  void throttled() {
    assertEquals(positions(1, ThrottledArg.values()), HEADER.argv("throttled"));
  }

  @Test
  @DisplayName("a lane's busy tenants are ARGV[1..4]: mode, member, ttl_us, counts")
  void busy() {
    assertEquals(positions(1, BusyArg.values()), HEADER.argv("busy"));
  }

  @Test
  @DisplayName("a settle is ARGV[2] slot_us, ARGV[3] reserved, ARGV[4] actual, then each limit's window, per_us, margin_us")
  void settle() {
    String prose = HEADER.at("KEYS", "i").text() + " " + HEADER.argvAt("5 + 3(i-1) ..").text();
    for (SettleArg arg : SettleArg.values()) {
      if (arg != SettleArg.MODE) {
        String written = "ARGV[" + (arg.ordinal() + 1) + "] " + arg.name().toLowerCase(Locale.ROOT);
        assertTrue(prose.contains(written), "the header writes " + written + ": " + prose);
      }
    }
    assertInOrder(HEADER.argvAt("5 + 3(i-1) ..").text(), SettleLimitArg.values());
  }

  @Test
  @DisplayName("a claim's answers are its \"Returns\" [1..6], by name and position")
  void claimAnswers() {
    assertEquals(positions(1, ClaimAnswer.values()), HEADER.reply("claim"));
  }

  @Test
  @DisplayName("a 429's answers are its \"Returns\" [1..4], by name and position")
  void throttledAnswers() {
    assertEquals(positions(1, ThrottledAnswer.values()), HEADER.reply("throttled"));
  }

  /** {@code names}, lower-cased, each found in {@code prose} after the one before it. */
  private static void assertInOrder(String prose, Enum<?>... names) {
    int from = 0;
    for (Enum<?> name : names) {
      String written = name.name().toLowerCase(Locale.ROOT);
      int at = prose.indexOf(written, from);
      assertTrue(at >= 0, written + " not found, in order "
          + Arrays.stream(names).map(Enum::name).collect(Collectors.joining(", ")) + ", in: " + prose);
      from = at + written.length();
    }
  }
}
