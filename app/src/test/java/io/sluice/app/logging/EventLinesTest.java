package io.sluice.app.logging;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.schemas.event.EventLog;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The dispatcher's settlements, each one line on sluice.events with its fields in the MDC. */
class EventLinesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private final SettlementWriter writer = new SettlementWriter(
      new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()),
      new Topics("t.", List.of(Duration.ofSeconds(1))), Clock.systemUTC(), e -> { }, timer);

  @AfterEach
  void stop() {
    timer.shutdownNow();
    EventLog.writeAt("INFO");
  }

  private static DispatchEntry entry(String id, String tenant) {
    WorkEvent event = new WorkEvent(id, tenant, "payments-api", 1, null, null, null, null);
    return new DispatchEntry(new TopicPartition("t.ready", 0), 42, 1, tenant.getBytes(UTF_8),
        "{\"card\":\"4111-1111\"}".getBytes(UTF_8), new RecordHeaders(), event, "std", 0, null);
  }

  @Test
  @DisplayName("delivered, refused and retried, refused and dead-lettered: tenant, provider, event id, outcome, reason and status as fields")
  void everySettlementIsOneLine() throws Exception {
    String json;
    List<ILoggingEvent> events;
    try (CapturedLines lines = new CapturedLines(EventLog.LOGGER, Level.INFO)) {
      writer.delivered(entry("e-1", "acme"), 200, 1, 12L, Map.of(), "{\"secret-body\":1}");
      writer.defer(entry("e-2", "acme"), Reason.PROVIDER_429, "provider answered 429; body: x",
          1500, 1, 429);
      writer.dead(entry("e-3", "initech"), Reason.NON_RETRYABLE_4XX,
          "provider answered 400; body: {\"secret-body\":1}", 1, 400);
      events = lines.events();
      json = lines.json();
    }

    assertEquals(3, events.size(), json);
    assertEquals(Map.of("tenant", "acme", "provider", "payments-api", "eventId", "e-1",
        "outcome", "delivered", "status", "200", "attempts", "1"), events.get(0).getMDCPropertyMap());
    assertEquals("refused with 429; retried in about 1500 ms (provider_429)",
        events.get(1).getFormattedMessage());
    assertEquals(Map.of("tenant", "initech", "provider", "payments-api", "eventId", "e-3",
        "outcome", "dead_lettered", "reason", "non_retryable_4xx", "status", "400",
        "attempts", "1"), events.get(2).getMDCPropertyMap());
    JsonNode dead = JSON.readTree(json.lines().toList().get(2));
    assertEquals("e-3", dead.path("eventId").asText());
    assertEquals("initech", dead.path("tenant").asText());
    assertEquals("INFO", dead.path("level").asText());
    assertFalse(json.contains("secret-body") || json.contains("4111"),
        "no payload, no answer body: " + json);
  }

  @Test
  @DisplayName("a tenant id from outside is cut and loses its control characters: no forged lines")
  void hostileFieldsBounded() {
    String hostile = "acme\n2026-11-26 INFO forged\u001b[31m" + "x".repeat(500);
    try (CapturedLines lines = new CapturedLines(EventLog.LOGGER, Level.INFO)) {
      writer.dead(entry("e-4", hostile), Reason.EXPIRED, "too late", 0);
      String tenant = lines.events().get(0).getMDCPropertyMap().get("tenant");
      assertEquals(EventLog.MAX_FIELD + 3, tenant.length(), tenant);
      assertTrue(tenant.startsWith("acme?2026-11-26 INFO forged?[31m"), tenant);
      assertEquals(1, lines.json().lines().count());
    }
  }

  @Test
  @DisplayName("logging.events sets the level lines are written at: DEBUG hides them at INFO, OFF writes none")
  void levelChosen() {
    try (CapturedLines lines = new CapturedLines(EventLog.LOGGER, Level.INFO)) {
      EventLog.writeAt("DEBUG");
      writer.delivered(entry("e-5", "acme"), 200, 1);
      assertEquals(0, lines.events().size());
    }
    try (CapturedLines lines = new CapturedLines(EventLog.LOGGER, Level.DEBUG)) {
      writer.delivered(entry("e-6", "acme"), 200, 1);
      assertEquals(Level.DEBUG, lines.events().get(0).getLevel());
      EventLog.writeAt("OFF");
      writer.delivered(entry("e-7", "acme"), 200, 1);
      assertEquals(1, lines.events().size());
    }
  }
}
