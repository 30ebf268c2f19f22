package io.sluice.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A Lua script from the classpath and its SHA-1, computed locally once, run with EVALSHA.
 *
 * <p>Why EVALSHA with an EVAL fallback rather than SCRIPT LOAD at start: a node forgets its
 * scripts on restart, failover or SCRIPT FLUSH, and in a Redis Cluster each key's node must hold
 * the script. EVALSHA costs 40 bytes per call; when a node answers NOSCRIPT, the same call is sent
 * once more as EVAL with the full text, which both answers it and caches the script on exactly
 * the node that lacked it (SCRIPT LOAD would go to an arbitrary node of a cluster).
 */
public record LuaScript(String resource, String text, String sha) {

  /** Reads {@code resource} (e.g. {@code /lua/token_bucket.lua}) from the classpath. */
  public static LuaScript load(String resource) {
    try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new LuaScript(resource, text, sha1(text));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Runs the script for a multi-bulk reply: EVALSHA, and EVAL when the node answers NOSCRIPT.
   *
   * @param onReload called when the script had to be sent in full
   */
  public CompletableFuture<List<Object>> run(RedisScriptingAsyncCommands<String, String> commands,
      String[] keys, String[] args, Runnable onReload) {
    return commands.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, args)
        .toCompletableFuture()
        .handle((reply, error) -> {
          if (error == null) {
            return CompletableFuture.completedFuture(reply);
          }
          if (AsyncFailure.cause(error) instanceof RedisNoScriptException) {
            onReload.run();
            return commands.<List<Object>>eval(text, ScriptOutputType.MULTI, keys, args)
                .toCompletableFuture();
          }
          return CompletableFuture.<List<Object>>failedFuture(AsyncFailure.cause(error));
        })
        .thenCompose(f -> f);
  }

  /** What a script reads Redis's clock with; {@link #atTime} replaces it. */
  private static final String TIME = "redis.call('TIME')";

  /**
   * This script with every read of Redis TIME replaced by {@code micros} (since the epoch): it
   * decides at exactly the time its caller gives, however long the caller took since its last
   * call. For specification tables and property suites on a real redis-server (a row or a step at
   * its own time, not Redis's; issue 34, 11), never for the product. Everything else runs as
   * shipped; the name says the time, and the SHA is the new text's.
   *
   * @throws IllegalStateException when the script never reads Redis TIME
   */
  public LuaScript atTime(long micros) {
    if (!text.contains(TIME)) {
      throw new IllegalStateException(resource + " does not read Redis TIME");
    }
    String frozen = text.replace(TIME, "{'" + micros / 1_000_000 + "', '" + micros % 1_000_000 + "'}");
    return new LuaScript(resource + "@" + micros, frozen, sha1(frozen));
  }

  /** A whole number of a script's answer: an integer reply, or a string of digits. */
  public static long whole(Object value) {
    return value instanceof Long l ? l : Long.parseLong((String) value);
  }

  static String sha1(String text) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
