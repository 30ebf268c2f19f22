package io.sluice.dispatcher.pause;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.dispatcher.DispatcherKeys;
import io.sluice.redis.LuaScript;
import io.sluice.redis.operator.OperatorEntry;
import io.sluice.redis.operator.OperatorJournal;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The pauses: written first to the operator topic ({@link OperatorJournal}, the durable home,
 * acknowledged), then to Redis, their cache: one hash, {@code sluice:v1:pauses}, field
 * {@link PauseScope#field()}, value {@code "<atMillis> {"by":...,"reason":...}"}, written and read
 * by {@code lua/pauses.lua}. A pause lives until it is removed; it survives every dispatcher's
 * restart and every loss of Redis's data: each role's {@code CacheKeeper} seeds the hash again
 * from the topic when it finds the hash's marker ({@value #MARKER}) gone, and a dispatcher honours
 * the topic's pauses whatever Redis answers ({@link PauseWatcher}).
 *
 * <p><b>Bounds.</b> At most {@value #MAX_PAUSES} pauses (the script refuses a new one beyond;
 * replacing one in force is always allowed), each value cut to {@value #MAX_VALUE_CHARS}
 * characters when read. A field that names no scope (written by something else) is skipped; a
 * value that does not parse keeps the pause with an unknown who, when and why: whatever is in
 * the hash under a valid scope pauses, because a pause that fails to read must not turn into calls.
 */
public final class PauseStore {
  /** The hash every pause is a field of. */
  public static final String KEY = DispatcherKeys.PAUSES;
  /** Most pauses in force at once. */
  public static final int MAX_PAUSES = 1_000;
  /**
   * The hash's field that marks it whole (seeded from the operator topic): it names no scope, so
   * every reader skips it, and it goes with the hash when Redis loses it.
   */
  public static final String MARKER = "~marker";
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
  private final OperatorJournal journal;
  private final LuaScript script = PausesScript.load();

  /** The pauses in Redis alone: for readers, and tests of the cache. */
  public PauseStore(RedisScriptingAsyncCommands<String, String> commands) {
    this(commands, OperatorJournal.NONE);
  }

  /** The pauses, each change written to {@code journal} first and to Redis once it is acknowledged. */
  public PauseStore(RedisScriptingAsyncCommands<String, String> commands, OperatorJournal journal) {
    this.commands = commands;
    this.journal = journal;
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
    OperatorEntry entry = OperatorEntry.of(OperatorEntry.Kind.PAUSE, scope.field(),
        System.currentTimeMillis(), value.toString());
    return journal.write(entry.key(), Optional.of(entry)).thenCompose(written -> script.run(
        commands, new String[] {KEY}, PausesScript.put(scope.field(), value.toString(), MAX_PAUSES),
        () -> {}))
        .thenApply(PausesScript::put)
        .thenCompose(put -> !put.written()
            // Refused by the bound: take it back from the topic too, so no role seeds it later.
            ? journal.write(entry.key(), Optional.empty()).thenApply(undone -> put)
            : CompletableFuture.completedFuture(put))
        .thenApply(put -> {
          if (!put.written()) {
            throw new TooManyPauses(put.atMillisOrCount());
          }
          return new Pause(scope, asked.by(), Instant.ofEpochMilli(put.atMillisOrCount()),
              asked.reason());
        });
  }

  /** Removes the pause of exactly {@code scope}; completes with whether there was one. */
  public CompletionStage<Boolean> resume(PauseScope scope) {
    return journal.write(new OperatorEntry.Key(OperatorEntry.Kind.PAUSE, scope.field()), Optional.empty())
        .thenCompose(written -> script.run(commands, new String[] {KEY},
            PausesScript.remove(scope.field()), () -> {}))
        .thenApply(PausesScript::removed);
  }

  /**
   * Sets the cache's pauses from the operator topic, in one script: each of {@code values} (field
   * to cached value, empty to remove), and, when {@code marker} is given, the marker after them.
   * Completes with how many fields changed.
   */
  public CompletionStage<Long> restore(Map<String, Optional<String>> values,
      Optional<String> marker) {
    return script.run(commands, new String[] {KEY}, PausesScript.restore(MARKER, marker, values),
        () -> {}).thenApply(PausesScript::changed);
  }

  /** The hash's marker, empty when absent (the cache lost, or never seeded). */
  public CompletionStage<Optional<String>> marker() {
    return script.run(commands, new String[] {KEY}, PausesScript.marker(MARKER), () -> {})
        .thenApply(PausesScript::markerValue);
  }

  /** The pauses of the operator topic's entries, as {@link #read} would answer them from Redis. */
  public static PauseRules rules(List<OperatorEntry> entries) {
    List<Pause> pauses = new ArrayList<>();
    for (OperatorEntry e : entries) {
      decode(e.id(), e.cached()).ifPresent(pauses::add);
    }
    return PauseRules.of(pauses);
  }

  /** Every pause in force, sorted by scope. */
  public CompletionStage<PauseRules> read() {
    return script.run(commands, new String[] {KEY}, PausesScript.list(), () -> {})
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
    } catch (NumberFormatException | JsonProcessingException
        | DateTimeException e) {
      // Unreadable details: the scope still pauses.
    }
    return Optional.of(new Pause(scope.get(), by, at, reason));
  }
}
