package io.sluice.topology.limiter;

import io.sluice.redis.LuaScript;

/** The gate's multi-rule script, {@code lua/quota_rules.lua} (its header documents it). */
public final class QuotaRulesScript {
  public static final String RESOURCE = "/lua/quota_rules.lua";

  private QuotaRulesScript() {}

  public static LuaScript load() {
    return LuaScript.load(RESOURCE);
  }
}
