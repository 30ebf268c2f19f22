package io.sluice.gate.limiter;

import io.sluice.redis.LuaScript;

/**
 * A script whose clock is the test's: its one {@code redis.call('TIME')} replaced by a time the
 * test sets ({@link LuaScript#atTime}), so each row of a table runs on redis-server at exactly the
 * time the table says, however slowly a loaded machine gets from one row to the next. (The rows
 * used to run on Redis's own clock with the stored times shifted back by each row's advance, and
 * assumed a few tens of milliseconds at most between rows: on a loaded machine a decision could
 * flip; issue 34, 11.) The gate's scripts read the clock once: checked here.
 */
final class FrozenTimeScript {
  private FrozenTimeScript() {}

  /** {@code script} reading {@code micros} (since the epoch) where it read Redis TIME. */
  static LuaScript at(LuaScript script, long micros) {
    String time = "redis.call('TIME')";
    int at = script.text().indexOf(time);
    if (at < 0 || script.text().indexOf(time, at + 1) >= 0) {
      throw new IllegalStateException(script.resource() + " must read Redis TIME exactly once");
    }
    return script.atTime(micros);
  }
}
