package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A script at a time its caller gives: every read of Redis TIME replaced, the rest as shipped. */
class LuaScriptTest {
  private static final LuaScript TWO_READS = new LuaScript("/lua/two.lua",
      "if ARGV[1] == 'a' then\n  local t = redis.call('TIME')\n  return t\nend\n"
          + "local t = redis.call('TIME')\nreturn {t[1], ARGV[1]}\n", "sha");

  @Test
  void shouldReplaceEveryReadOfRedisTimeByTheGivenTime() {
    LuaScript at = TWO_READS.atTime(1_700_000_000_123_456L);
    assertFalse(at.text().contains("redis.call('TIME')"));
    assertEquals(2, at.text().split("\\{'1700000000', '123456'\\}", -1).length - 1, at.text());
    assertTrue(at.text().contains("return {t[1], ARGV[1]}"), "the rest as shipped");
    assertEquals("/lua/two.lua@1700000000123456", at.resource());
    assertEquals(LuaScript.sha1(at.text()), at.sha());
    assertNotEquals(TWO_READS.atTime(1).sha(), TWO_READS.atTime(2).sha());
  }

  @Test
  void shouldRefuseAScriptThatNeverReadsRedisTime() {
    assertThrows(IllegalStateException.class,
        () -> new LuaScript("/lua/none.lua", "return 1", "sha").atTime(1));
  }
}
