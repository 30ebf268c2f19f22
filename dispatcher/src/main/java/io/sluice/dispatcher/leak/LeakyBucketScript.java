package io.sluice.dispatcher.leak;

import io.sluice.redis.LuaScript;

/** The leak's script, {@code lua/leaky_bucket.lua} (its header documents it). */
public final class LeakyBucketScript {
  public static final String RESOURCE = "/lua/leaky_bucket.lua";

  private LeakyBucketScript() {}

  public static LuaScript load() {
    return LuaScript.load(RESOURCE);
  }
}
