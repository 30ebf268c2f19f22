package io.sluice.topology.limiter;

import io.sluice.redis.LuaScript;

/** The gate's token-bucket script, {@code lua/token_bucket.lua} (its header documents it). */
public final class TokenBucketScript {
  public static final String RESOURCE = "/lua/token_bucket.lua";

  private TokenBucketScript() {}

  public static LuaScript load() {
    return LuaScript.load(RESOURCE);
  }
}
