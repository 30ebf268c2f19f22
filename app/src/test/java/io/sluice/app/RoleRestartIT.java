package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.supervise.RestartPolicy;
import io.sluice.app.supervise.Supervision;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.testkit.Await;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application's supervision with real roles, on the shared broker and Redis: a dispatcher
 * whose loop stops while the process lives is replaced by a new one, with new clients, and the
 * events after it are delivered.
 */
@ExtendWith(RealServers.class)
class RoleRestartIT {
  private static final Duration WITHIN = Duration.ofSeconds(60);

  @TempDir
  Path dir;
  private MockProvider mock;
  private SluiceApp app;
  private final List<Integer> exits = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    if (mock != null) {
      mock.close();
    }
  }

  @Test
  @DisplayName("a dispatcher whose loop stopped is started again, counted, and delivers what comes next")
  void deadDispatcherReplaced(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    mock = MockProvider.start(10_000, 100, Duration.ZERO);
    AppConfigFile file = AppConfigFile.write(dir, kafka.bootstrapServers(), redis.uri(),
        mock.url(), Map.of());
    SluiceConfig config = file.load();
    try (TopicAdmin admin = new TopicAdmin(config)) {
      admin.create(2, (short) 1);
    }
    Supervision supervision = new Supervision(
        new RestartPolicy(3, Duration.ofMinutes(1), Duration.ZERO, Duration.ZERO),
        Duration.ofMillis(50), System::currentTimeMillis, exits::add);
    app = SluiceApp.start(new LiveConfig(config), EnumSet.allOf(SluiceApp.Role.class), null,
        new MetricRegistry(), -1, supervision);
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());

    produce(kafka, topics, file, "before", 10);
    Await.until("the first deliveries", WITHIN,
        () -> app.metrics().sum("sluice_dispatch_delivered"), n -> n >= 10);

    DispatcherService first = app.dispatcher();
    first.dispatcher().halt(); // its loop ends as a crash would end it; the process lives on
    Await.until("a new dispatcher", WITHIN,
        () -> app.metrics().count("sluice_role_restarts", "role", "dispatcher"), n -> n == 1);
    DispatcherService second = app.dispatcher();
    assertNotSame(first, second);
    assertTrue(second.isRunning());

    produce(kafka, topics, file, "after", 10);
    Await.until("the events after the restart delivered", WITHIN,
        () -> mock.calls().stream().filter(c -> c.status() == 200)
            .map(MockProvider.Call::idempotencyKey)
            .filter(id -> id != null && id.startsWith("after-")).distinct().count(),
        n -> n == 10);
    assertEquals(List.of(), exits, "one failure: no exit");
  }

  private static void produce(KafkaBroker kafka, Topics topics, AppConfigFile file, String prefix,
      int n) throws Exception {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < n; i++) {
      lines.append(file.event(prefix + "-" + i, "acme")).append('\n');
    }
    Produce.lines(kafka.bootstrapServers(), topics, new BufferedReader(new StringReader(lines.toString())));
  }
}
