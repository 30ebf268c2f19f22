package io.sluice.redis.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.redis.operator.OperatorEntry.Key;
import io.sluice.redis.operator.OperatorEntry.Kind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The operator topic's record format, and what the view keeps of a sequence of records. */
class OperatorEntryTest {

  @Test
  void shouldGiveBackTheBytesRedisCachedSoThatASeedWritesWhatTheOperatorWrote() {
    OperatorEntry pause = OperatorEntry.of(Kind.PAUSE, "payments-api/*", 1234,
        "{\"by\":\"ana@ops-1\",\"reason\":\"INC-4711\"}");
    Key key = Key.parse("pause:payments-api/*".getBytes(StandardCharsets.UTF_8)).orElseThrow();

    OperatorEntry read = OperatorEntry.decode(key, pause.value()).orElseThrow();

    assertEquals(pause, read);
    assertEquals("1234 {\"by\":\"ana@ops-1\",\"reason\":\"INC-4711\"}", read.cached());
  }

  @Test
  void shouldReadATombstoneAndAnythingNotItsFormatAsNoValue() {
    Key key = new Key(Kind.TENANT, "acme");
    assertTrue(OperatorEntry.decode(key, null).isEmpty(), "a delete");
    assertTrue(OperatorEntry.decode(key, "{\"v\":2,\"at\":1,\"data\":{}}".getBytes()).isEmpty(),
        "a newer writer's format: not guessed at");
    assertTrue(OperatorEntry.decode(key, "not json".getBytes()).isEmpty());
    assertTrue(Key.parse("other:acme".getBytes()).isEmpty(), "a key that is not Sluice's");
    assertTrue(Key.parse("tenant:".getBytes()).isEmpty(), "a key without an id");
  }

  @Test
  void shouldRefuseASecretInTheClearAndCarryASealedOne() {
    IllegalArgumentException clear = assertThrows(IllegalArgumentException.class,
        () -> OperatorEntry.of(Kind.TENANT, "acme", 1,
            "{\"tier\":\"pro\",\"endpoints\":{\"hooks\":{\"url\":\"https://h.example/\","
                + "\"signingSecret\":\"s3cr3t\"}}}"));
    assertEquals("endpoints.hooks.signingSecret: a secret is written sealed ({\"sealed\":...}), "
        + "never in the clear", clear.getMessage());
    assertFalse(clear.getMessage().contains("s3cr3t"));

    OperatorEntry sealed = OperatorEntry.of(Kind.TENANT, "acme", 1,
        "{\"tier\":\"pro\",\"endpoints\":{\"hooks\":{\"url\":\"https://h.example/\","
            + "\"signingSecret\":{\"sealed\":\"k1:AAAA\"}}}}");
    assertEquals(Optional.of(sealed), OperatorEntry.decode(sealed.key(), sealed.value()));
    byte[] strangers = ("{\"v\":1,\"at\":1,\"data\":{\"endpoints\":{\"hooks\":{\"secret\":\"x\"}}}}")
        .getBytes(StandardCharsets.UTF_8);
    assertTrue(OperatorEntry.decode(sealed.key(), strangers).isEmpty(),
        "a clear secret someone else wrote to the topic is never seeded into Redis");
  }

  @Test
  void shouldKeepTheLatestValueOfEachKeyAndForgetATombstonedOne() {
    OperatorView view = new OperatorView();
    Key paused = new Key(Kind.PAUSE, "a/*");
    Key resumed = new Key(Kind.PAUSE, "b/*");
    view.apply(paused, Optional.of(OperatorEntry.of(Kind.PAUSE, "a/*", 1, "{\"reason\":\"one\"}")));
    view.apply(resumed, Optional.of(OperatorEntry.of(Kind.PAUSE, "b/*", 2, "{}")));
    view.apply(paused, Optional.of(OperatorEntry.of(Kind.PAUSE, "a/*", 3, "{\"reason\":\"two\"}")));
    view.apply(resumed, Optional.empty());

    assertEquals(List.of("3 {\"reason\":\"two\"}"),
        view.all(Kind.PAUSE).stream().map(OperatorEntry::cached).toList());
    assertEquals(List.of(paused, resumed), view.drainChanged(), "each changed key once");
    assertEquals(List.of(), view.drainChanged());
  }
}
