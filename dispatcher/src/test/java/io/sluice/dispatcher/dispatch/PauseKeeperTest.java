package io.sluice.dispatcher.dispatch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.redis.order.OrderStore;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.dispatcher.pause.Pause;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.pause.PauseScope;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What an operator's pause does with the events it covers, on a fake clock: held in memory for a
 * few seconds, then parked in Kafka and looked at again when they come back, so that a long
 * pause holds neither memory nor its partitions' commits.
 */
class PauseKeeperTest {
  private static final SluiceConfig CONFIG = ConfigLoader.parse("""
      tiers: { std: { weight: 1 } }
      defaultTier: std
      providers:
        hooks:
          url: http://127.0.0.1:9/hooks
          rate: 10/s
          quotas: { std: { capacity: 10, refill: 1/s } }
      """, Map.of());
  private static final Topics TOPICS = new Topics(CONFIG.kafka().topicPrefix(), CONFIG.ladder());
  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final MockProducer<byte[], byte[]> producer =
      new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final AtomicReference<PauseRules> rules = new AtomicReference<>(PauseRules.of(List.of(
      new Pause(PauseScope.provider("hooks"), "ops", Instant.ofEpochMilli(1_000_000), "upgrade"))));
  private final List<DispatchEntry> requeued = new ArrayList<>();
  private final PauseKeeper keeper = new PauseKeeper(rules::get, 1_000,
      new WithoutCall(new SettlementWriter(producer, TOPICS, clock, e -> { }, timer),
          DispatchListener.NONE, CONFIG, clock, new KeyTurns(OrderStore.NONE, CONFIG)), clock::nanos);

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  @Test
  void shouldHoldAPausedEventInMemoryForAFewSecondsThenParkIt() {
    keeper.hold(TenantEndpointsTest.entry("e1", "acme"));

    clock.advance(Duration.ofMillis(4_900));
    keeper.apply(List::of, clock.instant(), requeued::add);
    assertEquals(1, keeper.heldByProvider().get("hooks"), "held: the pause may be lifted soon");
    assertEquals(List.of(), producer.history());

    clock.advance(Duration.ofMillis(100));
    keeper.apply(List::of, clock.instant(), requeued::add);

    assertEquals(Map.of(), keeper.heldByProvider(), "no longer in memory");
    assertEquals(1, producer.history().size());
    ProducerRecord<byte[], byte[]> parked = producer.history().get(0);
    assertEquals("parked", header(parked, HeaderNames.REASON));
    assertEquals(String.valueOf(clock.millis() + PauseKeeper.RECHECK_MILLIS),
        header(parked, HeaderNames.NOT_BEFORE), "looked at again 30 s later");
    assertEquals(List.of(), requeued);
  }

  @Test
  void shouldHandBackAHeldEventWhenThePauseIsLiftedWithinTheFewSeconds() {
    DispatchEntry e1 = TenantEndpointsTest.entry("e1", "acme");
    keeper.hold(e1);
    clock.advance(Duration.ofSeconds(2));

    rules.set(PauseRules.NONE);
    keeper.apply(List::of, clock.instant(), requeued::add);

    assertEquals(List.of(e1), requeued);
    assertEquals(List.of(), producer.history(), "nothing written: the pause was short");
  }

  private static String header(ProducerRecord<byte[], byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), UTF_8);
  }
}
