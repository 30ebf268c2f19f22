package io.sluice.app.it;

import java.util.Comparator;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.sluice.app.SluiceApp;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.schemas.topic.Topics;
import io.sluice.schemas.trace.TraceParent;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One event's whole journey as one trace, received outside the JVM: the producer writes it to
 * {@code sluice.inbound} with its own {@code traceparent} and a {@code delay}, so the gate defers
 * it (to the ladder), the relay brings it back to the gate, the gate admits it, the dispatcher
 * calls a local provider, which records the {@code traceparent} it got. The spans of every stage
 * reach a Node.js OTLP/HTTP receiver ({@link OtlpReceiver}) in the producer's trace, and the
 * provider's traceparent is the provider attempt's span in that trace.
 */
@ExtendWith(RealServers.class)
class TracingIT {

  @Test
  @DisplayName("gate, relay, gate again, dispatcher wait, attempt and outcome: one trace, the producer's, at a real OTLP receiver")
  void oneEventsJourneyIsOneTraceAtTheReceiver(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    List<String> providerSaw = new CopyOnWriteArrayList<>();
    HttpServer provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    provider.createContext("/", exchange -> {
      providerSaw.add(String.valueOf(exchange.getRequestHeaders().getFirst("traceparent")));
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    provider.start();
    try (OtlpReceiver receiver = OtlpReceiver.start()) {
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            hooks:
              url: http://127.0.0.1:%d/hooks
              rate: 100/s
              quotas: { std: { capacity: 10, refill: 1/s } }
          tracing: { otlpEndpoint: %s, serviceName: sluice-it }
          """.formatted(provider.getAddress().getPort(), receiver.endpoint()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 1);
      String traceId = UUID.randomUUID().toString().replace("-", "");
      String producers = "00-" + traceId + "-00f067aa0ba902b7-01";

      try (SluiceApp app = SluiceApp.start(config, EnumSet.allOf(SluiceApp.Role.class), null,
          new MetricRegistry(), -1);
          KafkaProducer<byte[], byte[]> producer = Pipeline.producer(kafka)) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.inbound(), "acme".getBytes(UTF_8),
            "{\"id\":\"traced-1\",\"tenant\":\"acme\",\"provider\":\"hooks\",\"delay\":\"1s\",\"payload\":{\"n\":1}}"
                .getBytes(UTF_8));
        record.headers().add("traceparent", producers.getBytes(UTF_8));
        producer.send(record).get();

        Await.untilRead("the provider called once", Duration.ofSeconds(60), providerSaw::size, n -> n >= 1);
        Set<String> stages = Set.of("sluice.gate", "sluice.relay", "sluice.dispatcher.wait",
            "sluice.provider.attempt", "sluice.outcome");
        Await.untilRead("every stage's span at the receiver", Duration.ofSeconds(30),
            () -> names(receiver.spans(), traceId), names -> names.containsAll(stages));
      }

      List<JsonNode> trace = receiver.spans().stream()
          .filter(s -> s.get("traceId").asText().equals(traceId)).toList();
      System.out.printf("tracing: %d spans of trace %s at the OTLP receiver: %s%n", trace.size(), traceId,
          trace.stream().map(s -> s.get("name").asText() + "(" + s.get("attributes") + ")").toList());
      assertEquals(List.of(), receiver.errors(), "every export decoded");
      List<JsonNode> gate = named(trace, "sluice.gate");
      assertEquals(List.of("deferred", "admitted"),
          gate.stream().map(s -> s.get("attributes").get("sluice.decision").asText()).toList(),
          "the gate deferred it for its delay, then admitted it");
      assertEquals("scheduled", gate.get(0).get("attributes").get("sluice.reason").asText());
      assertEquals("00f067aa0ba902b7", gate.get(0).get("parentSpanId").asText(), "the producer's span is the parent");
      JsonNode relay = named(trace, "sluice.relay").get(0);
      assertEquals(gate.get(0).get("spanId").asText(), relay.get("parentSpanId").asText(), "the relay continues the gate");
      assertEquals(relay.get("spanId").asText(), gate.get(1).get("parentSpanId").asText(), "the gate again continues the relay");
      JsonNode attempt = named(trace, "sluice.provider.attempt").get(0);
      assertEquals(gate.get(1).get("spanId").asText(), attempt.get("parentSpanId").asText());
      assertEquals(200, attempt.get("attributes").get("http.response.status_code").asInt());
      assertEquals(3, attempt.get("kind").asInt(), "a client span (SPAN_KIND_CLIENT)");
      assertEquals("delivered", named(trace, "sluice.outcome").get(0).get("attributes").get("sluice.outcome").asText());
      assertEquals("sluice-it", attempt.get("service").asText());

      TraceParent sent = TraceParent.parse(providerSaw.get(0));
      assertEquals(traceId, sent.traceId(), "the provider's traceparent is in the producer's trace");
      assertEquals(attempt.get("spanId").asText(), sent.parentId(), "and its parent is the attempt's span");
    } finally {
      provider.stop(0);
    }
  }

  private static Set<String> names(List<JsonNode> spans, String traceId) {
    return spans.stream().filter(s -> s.get("traceId").asText().equals(traceId))
        .map(s -> s.get("name").asText()).collect(Collectors.toSet());
  }

  private static List<JsonNode> named(List<JsonNode> spans, String name) {
    return spans.stream().filter(s -> s.get("name").asText().equals(name))
        .sorted(Comparator.comparingLong(s -> s.get("start").asLong())).toList();
  }
}
