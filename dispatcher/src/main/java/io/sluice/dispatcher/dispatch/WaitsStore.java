package io.sluice.dispatcher.dispatch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Where each dispatcher instance tells what its events wait for ({@link Waits}, per provider),
 * for {@code status} to show: one Redis hash for the deployment, a field per live instance,
 * dropped once the instance has not written it for {@link #TTL_MILLIS} ({@code lua/waits.lua}).
 * Counts and instants, and the ids of the tenants waiting longest (at most
 * {@link Backlogs#MAX_TENANTS} per provider, for {@code status --tenant}); no payload.
 */
public final class WaitsStore {
  /** An instance silent this long is taken as gone. */
  static final long TTL_MILLIS = 5_000;
  static final String KEY = "sluice:v2:{waits}";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Waits>> TYPE = new TypeReference<>() { };
  private final LuaScript script = LuaScript.load("/lua/waits.lua");
  private final RedisScriptingAsyncCommands<String, String> redis;

  public WaitsStore(RedisScriptingAsyncCommands<String, String> redis) {
    this.redis = redis;
  }

  /** Writes {@code instance}'s waits. */
  public CompletionStage<Void> put(String instance, Map<String, Waits> waits) {
    String json;
    try {
      json = JSON.writeValueAsString(waits);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("waits are plain counts: " + e.getMessage(), e);
    }
    return script.run(redis, new String[] {KEY},
        new String[] {"put", instance, Long.toString(TTL_MILLIS), json}, () -> { })
        .thenApply(reply -> null);
  }

  /** Every live instance's waits, per provider. */
  public CompletionStage<List<Map<String, Waits>>> read() {
    return script.run(redis, new String[] {KEY}, new String[] {"read"}, () -> { })
        .thenApply(reply -> {
          List<Map<String, Waits>> out = new ArrayList<>();
          for (Object o : reply) {
            try {
              out.add(JSON.readValue(o.toString(), TYPE));
            } catch (JsonProcessingException e) {
              // Another version's document: left out rather than misread.
            }
          }
          return out;
        });
  }
}
