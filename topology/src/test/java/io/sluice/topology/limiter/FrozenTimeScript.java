package io.sluice.topology.limiter;

import io.sluice.redis.LuaScript;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A script whose clock is the test's: its one {@code redis.call('TIME')} replaced by a time the
 * test sets, so each row of a table runs on redis-server at exactly the time the table says,
 * however slowly a loaded machine gets from one row to the next. (The rows used to run on Redis's
 * own clock with the stored times shifted back by each row's advance, and assumed a few tens of
 * milliseconds at most between rows: on a loaded machine a decision could flip; issue 34, 11.)
 * Everything else of the script runs as shipped.
 */
final class FrozenTimeScript {
  private static final String TIME = "redis.call('TIME')";

  private FrozenTimeScript() {}

  /** {@code script} reading {@code micros} (since the epoch) where it read Redis TIME. */
  static LuaScript at(LuaScript script, long micros) {
    String text = script.text();
    int at = text.indexOf(TIME);
    if (at < 0 || text.indexOf(TIME, at + 1) >= 0) {
      throw new IllegalStateException(script.resource() + " must read Redis TIME exactly once");
    }
    String frozen = text.replace(TIME, "{'" + micros / 1_000_000 + "', '" + micros % 1_000_000 + "'}");
    return new LuaScript(script.resource() + "@" + micros, frozen, sha1(frozen));
  }

  private static String sha1(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
