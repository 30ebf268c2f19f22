package io.sluice.dispatcher.pause;

import io.sluice.redis.LuaScript;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The pauses' script, {@code lua/pauses.lua}, and its calling convention: each mode's arguments
 * and answers by name, each constant carrying the words the script's header writes at its
 * position ({@code PausesScriptHeaderTest} holds them to it). {@link PauseStore} chooses the
 * values; this class alone knows where each goes and where each answer comes back.
 */
final class PausesScript {
  static final String RESOURCE = "/lua/pauses.lua";

  /** {@code ARGV[1]}: what the call does. */
  enum Mode {
    PUT, REMOVE, LIST, RESTORE, MARKER;

    String arg() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** {@code ARGV[1..4]} of a put. */
  enum PutArg {
    MODE("\"put\""), FIELD("field"), JSON("json"), MAX("the most pauses the hash may hold");

    final String written;

    PutArg(String written) {
      this.written = written;
    }
  }

  /** {@code ARGV[1..3]} of a restore, then pairs of field and value. */
  enum RestoreArg {
    MODE("\"restore\""), MARKER_FIELD("the marker's field"), MARKER_VALUE("the marker's value");

    final String written;

    RestoreArg(String written) {
      this.written = written;
    }
  }

  /** The answer to a put: {@code {1, atMillis}} when written, {@code {0, count}} when refused. */
  enum PutAnswer {
    WRITTEN, AT_MILLIS_OR_COUNT
  }

  /** What a put answered. */
  record Put(boolean written, long atMillisOrCount) {}

  private PausesScript() {}

  static LuaScript load() {
    return LuaScript.load(RESOURCE);
  }

  static String[] put(String field, String json, int max) {
    String[] args = new String[PutArg.values().length];
    args[PutArg.MODE.ordinal()] = Mode.PUT.arg();
    args[PutArg.FIELD.ordinal()] = field;
    args[PutArg.JSON.ordinal()] = json;
    args[PutArg.MAX.ordinal()] = Integer.toString(max);
    return args;
  }

  static Put put(List<Object> reply) {
    return new Put((Long) reply.get(PutAnswer.WRITTEN.ordinal()) != 0,
        (Long) reply.get(PutAnswer.AT_MILLIS_OR_COUNT.ordinal()));
  }

  /** {@code ARGV[2]} the field. */
  static String[] remove(String field) {
    return new String[] {Mode.REMOVE.arg(), field};
  }

  /** Whether a pause was removed: {@code {1}}, or {@code {0}} when there was none. */
  static boolean removed(List<Object> reply) {
    return (Long) reply.get(0) == 1;
  }

  static String[] list() {
    return new String[] {Mode.LIST.arg()};
  }

  /** {@code values} field to value (empty: remove), after the marker's field and value ("": keep). */
  static String[] restore(String markerField, Optional<String> markerValue,
      Map<String, Optional<String>> values) {
    String[] head = new String[RestoreArg.values().length];
    head[RestoreArg.MODE.ordinal()] = Mode.RESTORE.arg();
    head[RestoreArg.MARKER_FIELD.ordinal()] = markerField;
    head[RestoreArg.MARKER_VALUE.ordinal()] = markerValue.orElse("");
    List<String> args = new ArrayList<>(List.of(head));
    values.forEach((field, value) -> {
      args.add(field);
      args.add(value.orElse(""));
    });
    return args.toArray(String[]::new);
  }

  /** The fields a restore changed. */
  static long changed(List<Object> reply) {
    return (Long) reply.get(0);
  }

  /** {@code ARGV[2]} the marker's field. */
  static String[] marker(String markerField) {
    return new String[] {Mode.MARKER.arg(), markerField};
  }

  /** The marker's value: {@code {its value}}, or {@code {}} when absent. */
  static Optional<String> markerValue(List<Object> reply) {
    return reply.isEmpty() ? Optional.empty() : Optional.of(String.valueOf(reply.get(0)));
  }
}
