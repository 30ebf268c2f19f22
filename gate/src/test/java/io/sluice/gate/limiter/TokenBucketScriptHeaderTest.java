package io.sluice.gate.limiter;

import static io.sluice.testkit.ScriptHeader.positions;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.testkit.ScriptHeader;
import io.sluice.gate.limiter.TokenBucketScript.Answer;
import io.sluice.gate.limiter.TokenBucketScript.Arg;
import io.sluice.gate.limiter.TokenBucketScript.Key;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link TokenBucketScript}'s names and positions are the ones {@code token_bucket.lua}'s header
 * states: a renamed, added or reordered argument or answer on either side fails here, before any
 * Redis runs the script with its arguments shifted.
 */
class TokenBucketScriptHeaderTest {
  private static final ScriptHeader HEADER = ScriptHeader.of(TokenBucketScript.load().text());

  @Test
  @DisplayName("one request's keys are the header's KEYS[1..2]: the bucket, then its slot's marker")
  void keys() {
    assertEquals(Key.values().length, HEADER.keyCount(""));
  }

  @Test
  @DisplayName("one request's arguments are the header's ARGV[1..10], by name and position")
  void arguments() {
    assertEquals(positions(1, Arg.values()), HEADER.argv(""));
  }

  @Test
  @DisplayName("one request's answers are the header's \"Returns\" [1..9], by name and position")
  void answers() {
    assertEquals(positions(1, Answer.values()), HEADER.reply(""));
  }
}
