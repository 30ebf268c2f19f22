package io.sluice.dispatcher.pause;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The pauses in Redis: one hash, {@code sluice:v1:pauses}, field {@link PauseScope#field()},
 * value {@code "<atMillis> {"by":...,"reason":...}"}, written and read by {@code lua/pauses.lua}.
 * A pause lives until it is removed; it survives every dispatcher's restart, and Redis's as far
 * as Redis persists its data (AOF or RDB).
 *
 * <p><b>Bounds.</b> At most {@value #MAX_PAUSES} pauses (the script refuses a new one beyond;
 * replacing one in force is always allowed), each value cut to {@value #MAX_VALUE_CHARS}
 * characters when read. A field that names no scope (written by something else) is skipped; a
 * value that does not parse keeps the pause with an unknown who, when and why: whatever is in
 * the hash under a valid scope pauses, because a pause that fails to read must not turn into calls.
 */
public final class PauseStore {
  /** The hash every pause is a field of. */
  public static final String KEY = "sluice:v1:pauses";
  /** Most pauses in force at once. */
  public static final int MAX_PAUSES = 1_000;
  /** Longest stored value read. */
  static final int MAX_VALUE_CHARS = 2_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A new pause was refused: {@value #MAX_PAUSES} are in force already. */
  public static final class TooManyPauses extends RuntimeException {
    public TooManyPauses(long count) {
      super(count + " pauses are in force already, the most Sluice keeps (" + MAX_PAUSES
          + "); resume some first");
    }
  }

  private final RedisScriptingAsyncCommands<String, String> commands;
  private final LuaScript script = LuaScript.load("/lua/pauses.lua");

  public PauseStore(RedisScriptingAsyncCommands<String, String> commands) {
    this.commands = commands;
  }

  /**
   * Writes a pause of {@code scope} (replacing one in force there); {@code by} and {@code reason}
   * are cleaned first ({@link OperatorText}). Completes with the pause as stored, its time from
   * Redis's clock, or fails with {@link TooManyPauses}.
   */
  public CompletionStage<Pause> pause(PauseScope scope, String by, String reason) {
    Pause asked = new Pause(scope, by, Instant.EPOCH, reason);
    ObjectNode value = JSON.createObjectNode();
    value.put("by", asked.by());
    value.put("reason", asked.reason());
    return script.run(commands, new String[] {KEY},
        new String[] {"put", scope.field(), value.toString(), Integer.toString(MAX_PAUSES)}, () -> {})
        .thenApply(reply -> {
          if ((Long) reply.get(0) == 0) {
            throw new TooManyPauses((Long) reply.get(1));
          }
          return new Pause(scope, asked.by(), Instant.ofEpochMilli((Long) reply.get(1)),
              asked.reason());
        });
  }

  /** Removes the pause of exactly {@code scope}; completes with whether there was one. */
  public CompletionStage<Boolean> resume(PauseScope scope) {
    return script.run(commands, new String[] {KEY}, new String[] {"remove", scope.field()}, () -> {})
        .thenApply(reply -> (Long) reply.get(0) == 1);
  }

  /** Every pause in force, sorted by scope. */
  public CompletionStage<PauseRules> read() {
    return script.run(commands, new String[] {KEY}, new String[] {"list"}, () -> {})
        .thenApply(reply -> {
          List<Pause> pauses = new ArrayList<>();
          for (int i = 0; i + 1 < reply.size() && pauses.size() < MAX_PAUSES; i += 2) {
            decode(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)))
                .ifPresent(pauses::add);
          }
          return PauseRules.of(pauses);
        });
  }

  /** A stored pause; empty when the field names no scope. */
  static Optional<Pause> decode(String field, String value) {
    Optional<PauseScope> scope = PauseScope.parse(field);
    if (scope.isEmpty()) {
      return Optional.empty();
    }
    String v = value.length() > MAX_VALUE_CHARS ? value.substring(0, MAX_VALUE_CHARS) : value;
    Instant at = Instant.EPOCH;
    String by = "unknown";
    String reason = "";
    int space = v.indexOf(' ');
    try {
      at = Instant.ofEpochMilli(Long.parseLong(space < 0 ? v : v.substring(0, space)));
      JsonNode json = JSON.readTree(v.substring(space + 1));
      by = json.path("by").asText(by);
      reason = json.path("reason").asText(reason);
    } catch (NumberFormatException | com.fasterxml.jackson.core.JsonProcessingException
        | java.time.DateTimeException e) {
      // Unreadable details: the scope still pauses.
    }
    return Optional.of(new Pause(scope.get(), by, at, reason));
  }
}
