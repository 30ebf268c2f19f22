package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.sluice.app.SluiceApp;
import io.sluice.app.TopicAdmin;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The web console (docs/console.md) used in real headless Chromium as an operator would, against
 * a running dispatcher calling a provider over HTTP ({@code console-check.mjs}, driven by
 * playwright-core from npm, pinned in {@code src/test/node/console/package-lock.json}). The
 * provider's own record of when calls arrived is the judge of the pause: no call from 1 s after
 * the operator pressed Pause until Resume, calls again after it.
 *
 * <p>Without Chromium or node the test is skipped, except under {@code CI=true} or
 * {@code SLUICE_REQUIRE_CHROMIUM}, where {@code .ci/run} installs them and a skip would hide a
 * failure. It leaves its screenshot in {@code target/console.png}.
 */
@ExtendWith(RealServers.class)
class ConsoleBrowserIT {
  private static final Path NODE_PROJECT = Path.of("src/test/node/console");
  private static final Path WORK = Path.of("target/console-check");
  private static final Path SCREENSHOT = Path.of("target/console.png");
  private static final String WRITE = "console-write-5b7e1d";
  private static final String READ = "console-read-0c9a42";
  /** What the provider answers the poisoned event: markup that must never become markup. */
  private static final String HOSTILE = "<img src=x onerror=\"document.title='pwned'\">";

  @Test
  @DisplayName("an operator signs in, pauses a provider (its calls stop within a second), resumes it, replays a dead letter once, traces it")
  void operatorPausesAndResumes(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    requireBrowser();
    String provider = Providers.uniqueName("console");
    ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();
    HttpServer partner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    partner.setExecutor(Executors.newFixedThreadPool(4));
    partner.createContext("/", exchange -> {
      arrivals.add(System.currentTimeMillis());
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      byte[] answer = (body.contains("\"poison\"") ? HOSTILE : "{}").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(body.contains("\"poison\"") ? 400 : 200, answer.length);
      exchange.getResponseBody().write(answer);
      exchange.close();
    });
    partner.start();
    Map<String, String> env = new java.util.HashMap<>(Pipeline.env(kafka, redis.uri()));
    env.put("CONSOLE_WRITE", WRITE);
    env.put("CONSOLE_READ", READ);
    SluiceConfig config = ConfigLoader.parse("""
        ladder: [1s]
        tiers: { pro: { weight: 3 }, free: { weight: 1 } }
        defaultTier: free
        providers:
          %s:
            url: http://127.0.0.1:%d/hook
            rate: 20/s
            capture: { bodyBytes: 256 }
            quotas: { pro: { capacity: 10, refill: 1/s }, free: { capacity: 10, refill: 1/s } }
        admin: { readToken: "${env:CONSOLE_READ}", writeToken: "${env:CONSOLE_WRITE}" }
        """.formatted(provider, partner.getAddress().getPort()), env);
    // As `sluice topics create` makes them: the replay ledger's topic too.
    long t0 = System.nanoTime();
    try (TopicAdmin admin = new TopicAdmin(config)) {
      admin.create(1, (short) 1);
    }
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    List<Ready> events = new ArrayList<>();
    events.add(new Ready("poison", "acme", "pro", provider));
    for (int i = 0; i < 800; i++) {
      events.add(new Ready("c" + i, i % 4 == 0 ? "acme" : "free-" + (i % 7), i % 4 == 0 ? "pro"
          : "free", provider));
    }
    Pipeline.produceReady(kafka, topics, events);
    long tProduced = System.nanoTime();
    try (SluiceApp app = SluiceApp.start(config, EnumSet.of(SluiceApp.Role.DISPATCHER), null,
        new MetricRegistry(), 0)) {
      long started = System.nanoTime();
      JsonNode seen = browse("http://127.0.0.1:" + app.httpPort(), provider);
      System.out.printf("console: topics and events %.1f s, the dispatcher's start %.1f s, the "
          + "browser %.1f s: %s%n", (tProduced - t0) / 1e9, (started - tProduced) / 1e9,
          (System.nanoTime() - started) / 1e9, seen);
      long pausedAt = seen.get("pauseClickedAt").asLong();
      long resumedAt = seen.get("resumeClickedAt").asLong();
      Await.until("a call after Resume", Duration.ofSeconds(5),
          () -> arrivals.stream().anyMatch(t -> t >= resumedAt));
      List<Long> calls = new ArrayList<>(arrivals);
      long lastBeforeResume = calls.stream().filter(t -> t < resumedAt).mapToLong(t -> t).max()
          .orElseThrow();
      System.out.printf("console pause: last call %d ms after Pause was pressed, shown paused "
              + "after %d ms; watched %d ms with no call; first call %d ms after Resume%n",
          lastBeforeResume - pausedAt, seen.get("shownPausedAt").asLong() - pausedAt,
          resumedAt - lastBeforeResume, calls.stream().filter(t -> t >= resumedAt)
              .mapToLong(t -> t - resumedAt).min().orElse(-1));
      assertTrue(lastBeforeResume < pausedAt + 1000, "the provider got a call "
          + (lastBeforeResume - pausedAt) + " ms after Pause was pressed");
      assertTrue(resumedAt - pausedAt > 2000, "watched long enough: " + (resumedAt - pausedAt));
      long firstAfter = calls.stream().filter(t -> t >= resumedAt).mapToLong(t -> t).min()
          .orElseThrow();
      assertTrue(firstAfter < resumedAt + 2000, "calls again within 2 s of Resume: "
          + (firstAfter - resumedAt) + " ms");
      assertEquals("paused", seen.get("badgeWhilePaused").asText());
      assertTrue(seen.get("waitsWhilePaused").asText().matches(
          "(?s)waiting: .*(held by a pause|parked in Kafka).*"),
          () -> "what the waiting events wait for: " + seen.get("waitsWhilePaused"));
      assertTrue(seen.get("pauseReasonShown").asText().contains("ConsoleBrowserIT <b>watching</b>"),
          "the reason, as text: " + seen);
      assertEquals("write access", seen.get("access").asText());
      assertFalse(seen.get("urlAfterLogin").asText().contains(WRITE), "no token in the URL");

      JsonNode rows = seen.get("deadLetterRows");
      assertEquals(1, rows.size(), seen.toString());
      assertEquals("non_retryable_4xx", rows.get(0).get(1).asText());
      assertTrue(rows.get(0).get(6).asText().contains(HOSTILE), "the answer shown as text: " + rows);
      assertEquals(0, seen.get("elementsFromData").asInt(), "no markup made of the answer or the reason");
      assertEquals("Sluice console", seen.get("title").asText(), "no script ran from the answer");
      assertTrue(seen.get("preview").asText().contains("would send 1 events"), seen.toString());
      assertTrue(seen.get("replayed").asText().startsWith("sent 1 events"), seen.toString());
      assertTrue(seen.get("previewAgain").asText().contains("1 already replayed"), seen.toString());
      assertTrue(seen.get("confirmAgainDisabled").asBoolean());

      // The poisoned event's journey (admin API /admin/events/poison): read from ready, dead,
      // and sent back to inbound by the replay; the answer in its detail shown as text.
      JsonNode journey = seen.get("journeyRows");
      List<String> whats = new ArrayList<>();
      journey.forEach(row -> whats.add(row.get(2).asText()));
      assertTrue(whats.contains("dead-lettered: non_retryable_4xx") && whats.contains("produced"),
          "the journey's stages: " + journey + " (" + seen.get("journeyMessage") + ")");
      boolean answerShown = false;
      for (JsonNode row : journey) {
        answerShown |= row.get(3).asText().contains(HOSTILE);
      }
      assertTrue(answerShown, "the answer in the journey, as text: " + journey);
      assertEquals(0, seen.get("elementsFromJourney").asInt(), "no markup made of the journey");

      // Every Sluice with an admin API has the registry: the lookup opens the edit form (acme,
      // unknown to the file, in the default tier), never "no tenant registry".
      assertTrue(seen.get("tenantFormShown").asBoolean(), seen.toString());
      assertFalse(seen.get("tenantMessage").asText().contains("no tenant registry"), seen.toString());
      // Its wait toward the provider (GET /admin/status?tenant=acme, as status --tenant says it).
      assertEquals(1, seen.get("tenantWait").size(), seen.toString());
      assertTrue(seen.get("tenantWait").get(0).asText().matches(provider + ": (nothing queued in "
          + "a dispatcher|oldest queued [0-9.]+ s).*"), seen.toString());
      assertTrue(seen.get("tokenInStorage").asBoolean());
      assertFalse(seen.get("tokenInPage").asBoolean(), "the token is not in the page");
      assertTrue(seen.get("tokenAfterSignOut").isNull(), "signing out forgets the token");
      assertEquals("read-only", seen.get("readAccess").asText());
      assertTrue(seen.get("readPauseDisabled").asBoolean(), "a read token cannot pause");
      assertTrue(seen.get("readReplayDisabled").asBoolean(), "a read token cannot replay");
      assertTrue(seen.get("wrongToken").asText().contains("a valid admin token is needed"),
          seen.toString());
      assertEquals(0, seen.get("problems").size(), "the page's errors: " + seen.get("problems"));
      assertTrue(Files.size(SCREENSHOT) > 10_000, "a screenshot in " + SCREENSHOT);
    } finally {
      partner.stop(0);
      ((java.util.concurrent.ExecutorService) partner.getExecutor()).shutdownNow();
      try (var client = io.lettuce.core.RedisClient.create(redis.uri()).connect()) {
        client.sync().hdel(PauseStore.KEY, provider + "/*");
      }
    }
  }

  /** Runs {@code console-check.mjs} against the console and returns what it saw. */
  private static JsonNode browse(String base, String provider) throws Exception {
    Files.createDirectories(WORK);
    for (String f : List.of("package.json", "package-lock.json", "console-check.mjs")) {
      Files.copy(NODE_PROJECT.resolve(f), WORK.resolve(f), StandardCopyOption.REPLACE_EXISTING);
    }
    if (!Files.isDirectory(WORK.resolve("node_modules/playwright-core"))) {
      run(List.of("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"), Map.of(), 120);
    }
    String out = run(List.of("node", "console-check.mjs"), Map.of("BASE_URL", base,
        "WRITE_TOKEN", WRITE, "READ_TOKEN", READ, "PROVIDER", provider,
        "SCREENSHOT", SCREENSHOT.toAbsolutePath().toString()), 60);
    String last = out.strip().lines().reduce((a, b) -> b).orElse("");
    return new ObjectMapper().readTree(last);
  }

  private static String run(List<String> command, Map<String, String> env, int seconds)
      throws IOException, InterruptedException {
    ProcessBuilder b = new ProcessBuilder(command).directory(WORK.toFile())
        .redirectErrorStream(true);
    b.environment().putAll(env);
    Process p = b.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail(command + " did not end within " + seconds + " s:\n" + out);
    }
    assertEquals(0, p.exitValue(), command + " failed:\n" + out);
    return out;
  }

  /** Skips without Chromium or node, unless CI or SLUICE_REQUIRE_CHROMIUM asks that it run. */
  private static void requireBrowser() {
    boolean there = Files.isExecutable(Path.of("/usr/bin/chromium")) && onPath("node")
        && onPath("npm");
    if (there) {
      return;
    }
    String why = "the console's browser test needs /usr/bin/chromium, node and npm (`sudo apt-get "
        + "install -y chromium nodejs npm`)";
    if ("true".equals(System.getenv("CI")) || System.getenv("SLUICE_REQUIRE_CHROMIUM") != null) {
      fail(why + " (CI or SLUICE_REQUIRE_CHROMIUM is set)");
    }
    Assumptions.abort(why + ": skipped");
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
