package io.sluice.app;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's round trip through the CLI: {@code topics create}, {@code produce --file} with
 * 50 good events and one malformed line, and {@code verify}, which reconciles inbound ids against
 * outcomes and dead letters. Each test has its own config (own topics), on the shared broker and
 * Redis, with the mock provider taking far more than the configured 200/s.
 */
@ExtendWith(RealServers.class)
class ProduceVerifyIT {
  private static final int GOOD = 50;
  private static final String READ_TOKEN = "pv-read-3c81f0a2";

  @TempDir
  Path dir;

  @Test
  @DisplayName("verify before any role ran exits 1 and lists the missing ids")
  void verifyBeforeThePipelineRanFindsMissingIds(KafkaBroker kafka, RedisServerProcess redis)
      throws IOException {
    AppConfigFile config = AppConfigFile.write(dir, kafka.bootstrapServers(), redis.uri(),
        java.net.URI.create("http://127.0.0.1:1/"), Map.of());
    createTopicsAndProduce(config);

    CliRun verify = CliRun.of("verify", "--config", config.file().toString(),
        "--timeout-seconds", "20", "--show", "100");

    assertEquals(1, verify.exitCode(), verify.output());
    assertTrue(verify.out().contains("delivered 0, dead-lettered 0"), verify.output());
    assertTrue(verify.out().contains("missing " + (GOOD + 1)), verify.output());
    for (int i = 0; i < GOOD; i++) {
      assertTrue(verify.out().contains("missing: " + id(i) + "\n"),
          id(i) + " not listed as missing:\n" + verify.output());
    }
    // The malformed line has no id: it is named by its coordinates in the inbound topic.
    assertTrue(verify.out().contains("missing: " + config.prefix() + "inbound-"),
        verify.output());
  }

  @Test
  @DisplayName("once the pipeline settled, verify exits 0: delivered 50, dead-lettered 1")
  void verifyAfterThePipelineRanIsComplete(KafkaBroker kafka, RedisServerProcess redis)
      throws IOException {
    try (MockProvider mock = MockProvider.start(10_000, 100, Duration.ZERO)) {
      AppConfigFile config = AppConfigFile.write(dir, kafka.bootstrapServers(), redis.uri(),
          mock.url(), Map.of("acme", "enterprise", "globex", "pro"));
      createTopicsAndProduce(config);
      Files.writeString(config.file(), "admin: { readToken: \"" + READ_TOKEN + "\" }\n",
          StandardOpenOption.APPEND);
      SluiceConfig loaded = config.load();
      Topics topics = new Topics(loaded.kafka().topicPrefix(), loaded.ladder());

      try (SluiceApp app = SluiceApp.start(loaded, EnumSet.allOf(SluiceApp.Role.class), null,
          new MetricRegistry(), 0)) {
        AtomicReference<Verify.Report> last = new AtomicReference<>();
        Await.until("verify to find every event settled (last: " + last + ")",
            Duration.ofSeconds(45), () -> {
              last.set(Verify.run(kafka.bootstrapServers(), topics, Duration.ofSeconds(10)));
              return last.get().complete();
            });

        CliRun verify = CliRun.of("verify", "--config", config.file().toString(),
            "--timeout-seconds", "20");

        assertEquals(0, verify.exitCode(), verify.output());
        assertTrue(verify.out().contains("inbound records " + (GOOD + 1)), verify.output());
        assertTrue(verify.out().contains("delivered " + GOOD + ", dead-lettered 1 "),
            verify.output());
        assertTrue(verify.out().contains("missing 0"), verify.output());
        assertEquals(GOOD, mock.callCount(), "calls at the provider");

        // sluice trace: one event's journey, read back from the topics.
        CliRun trace = CliRun.of("trace", id(7), "--config", config.file().toString(),
            "--since", "PT1H", "--timeout-seconds", "30");
        assertEquals(0, trace.exitCode(), trace.output());
        String journey = trace.out();
        int produced = journey.indexOf(config.prefix() + "inbound-");
        int admitted = journey.indexOf("admitted by the gate");
        int delivered = journey.indexOf("delivered  {");
        assertTrue(produced >= 0 && produced < admitted && admitted < delivered,
            "produced, admitted, delivered, in that order:\n" + journey);
        assertTrue(journey.contains("status=200"), journey);
        CliRun nobody = CliRun.of("trace", "pv-nobody", "--config", config.file().toString(),
            "--since", "PT1H", "--timeout-seconds", "30");
        assertEquals(1, nobody.exitCode(), "an id no topic holds: " + nobody.output());
        CliRun bounded = CliRun.of("trace", id(7), "--config", config.file().toString(),
            "--max-records", "3");
        assertTrue(bounded.out().contains("a bound stopped the search"), bounded.output());

        // The same journey on the admin API, as JSON.
        HttpResponse<String> journeyApi = admin(app, "/admin/events/" + id(7) + "?since=1h",
            READ_TOKEN);
        assertEquals(200, journeyApi.statusCode(), journeyApi.body());
        JsonNode body = new ObjectMapper().readTree(journeyApi.body());
        assertEquals(id(7), body.get("id").asText());
        List<String> whats = new ArrayList<>();
        body.get("stages").forEach(st -> whats.add(st.get("what").asText()));
        assertEquals(List.of("produced", "admitted by the gate", "delivered"), whats,
            journeyApi.body());
        assertEquals("200", body.get("stages").get(2).get("details").get("status").asText());
        assertTrue(body.get("stages").get(0).get("where").asText()
            .startsWith(config.prefix() + "inbound-"), journeyApi.body());
        assertTrue(body.get("recordsRead").asLong() > 0);
        HttpResponse<String> nobodyApi = admin(app, "/admin/events/pv-nobody?since=1h",
            READ_TOKEN);
        assertEquals(404, nobodyApi.statusCode(), nobodyApi.body());
        assertEquals(0, new ObjectMapper().readTree(nobodyApi.body()).get("stages").size());
        assertEquals(401, admin(app, "/admin/events/" + id(7), "not-the-token").statusCode());
        assertEquals(400, admin(app, "/admin/events/a%0Ab", READ_TOKEN).statusCode());
      }
    }
  }

  private static HttpResponse<String> admin(SluiceApp app, String path, String token)
      throws IOException {
    try {
      return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + app.httpPort() + path))
          .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** topics create, then produce --file with the good events and one malformed line. */
  private void createTopicsAndProduce(AppConfigFile config) throws IOException {
    CliRun create = CliRun.of("topics", "create", "--config", config.file().toString(),
        "--partitions", "2");
    assertEquals(0, create.exitCode(), create.output());
    assertTrue(create.out().contains("created " + config.prefix() + "inbound"), create.output());

    List<String> lines = new ArrayList<>();
    String[] tenants = {"acme", "globex", "initech"};
    for (int i = 0; i < GOOD; i++) {
      lines.add(config.event(id(i), tenants[i % tenants.length]));
      if (i == GOOD / 2) {
        lines.add("{\"id\": \"broken\", \"tenant\": ");
      }
    }
    Path events = dir.resolve("events.jsonl");
    Files.write(events, lines);

    CliRun produce = CliRun.of("produce", "--config", config.file().toString(), "--file",
        events.toString());
    assertEquals(0, produce.exitCode(), produce.output());
    assertTrue(produce.out().contains("sent " + (GOOD + 1) + " events to " + config.prefix()
        + "inbound (1 without a readable tenant"), produce.output());
  }

  private static String id(int i) {
    return String.format("pv-%03d", i);
  }
}
