package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.testkit.Await;
import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The status's Kafka parts under the console's polling: one read per period, shared. */
class StatusCacheTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-26T20:00:00Z"));
  private final AtomicInteger lagReads = new AtomicInteger();
  private final AtomicInteger scans = new AtomicInteger();

  private ObjectNode scan() {
    return JSON.createObjectNode().put("scan", scans.incrementAndGet());
  }

  private final StatusCache cache = new StatusCache(StatusCache.SHARED, clock::nanos, clock,
      () -> JSON.createObjectNode().put("read", lagReads.incrementAndGet()), this::scan);

  private ObjectNode seen(StatusCache.Seen part) {
    ObjectNode out = JSON.createObjectNode();
    ObjectNode errors = JSON.createObjectNode();
    part.into(out, errors, "part");
    return errors.isEmpty() ? (ObjectNode) out.get("part") : errors;
  }

  @Test
  void shouldScanTheDeadLettersOncePerPeriodHoweverOftenTheConsolesPoll() {
    ObjectNode first = seen(cache.deadLetters());
    clock.advance(Duration.ofMillis(1_000));
    ObjectNode second = seen(cache.deadLetters());
    clock.advance(Duration.ofMillis(999));
    seen(cache.deadLetters());
    assertEquals(1, scans.get());
    assertEquals("2026-11-26T20:00:00Z", first.get("asOf").asText());
    assertEquals("2026-11-26T20:00:00Z", second.get("asOf").asText(), "the shared scan's time");
    assertEquals(1, second.get("scan").asInt());

    clock.advance(Duration.ofMillis(1));
    ObjectNode third = seen(cache.deadLetters());
    assertEquals(2, third.get("scan").asInt());
    assertEquals("2026-11-26T20:00:02Z", third.get("asOf").asText());
  }

  @Test
  void shouldReadTheLagOncePerPeriodApartFromTheScan() {
    seen(cache.waiting());
    seen(cache.waiting());
    seen(cache.deadLetters());
    assertEquals(1, lagReads.get());
    assertEquals(1, scans.get());
  }

  @Test
  void shouldLetASecondConsoleWaitForTheScanInProgressInsteadOfStartingItsOwn() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    StatusCache slow = new StatusCache(StatusCache.SHARED, clock::nanos, clock,
        JSON::createObjectNode, () -> {
          scans.incrementAndGet();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return JSON.createObjectNode().put("scan", scans.get());
        });
    AtomicReference<ObjectNode> a = new AtomicReference<>();
    AtomicReference<ObjectNode> b = new AtomicReference<>();
    Thread first = new Thread(() -> a.set(seen(slow.deadLetters())));
    first.start();
    Await.until("the first console's scan has started", Duration.ofSeconds(5),
        () -> scans.get() == 1);
    Thread second = new Thread(() -> b.set(seen(slow.deadLetters())));
    second.start();
    Await.until("the second console waits for it", Duration.ofSeconds(5),
        () -> second.getState() == Thread.State.BLOCKED);
    release.countDown();
    first.join(5_000);
    second.join(5_000);
    assertEquals(1, scans.get());
    assertEquals(a.get(), b.get());
  }

  @Test
  void shouldKeepAFailedReadForThePeriodSoKafkaIsNotAskedByEveryRequest() {
    StatusCache failing = new StatusCache(StatusCache.SHARED, clock::nanos, clock,
        JSON::createObjectNode, () -> {
          scans.incrementAndGet();
          throw new IllegalStateException("Kafka did not answer");
        });
    ObjectNode errors = seen(failing.deadLetters());
    seen(failing.deadLetters());
    assertEquals("Kafka did not answer", errors.get("part").asText());
    assertEquals(1, scans.get());
  }

  @Test
  void shouldGiveEachRequestItsOwnCopy() {
    seen(cache.deadLetters()).put("scan", 99);
    ObjectNode again = seen(cache.deadLetters());
    assertEquals(1, again.get("scan").asInt());
  }
}
