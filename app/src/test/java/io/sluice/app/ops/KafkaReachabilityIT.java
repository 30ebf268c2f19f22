package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealServers.class)
class KafkaReachabilityIT {

  @Test
  void shouldReportAReachableClusterWithItsBrokersAndId(KafkaBroker kafka) {
    try (KafkaReachability check = KafkaReachability.of(kafka.bootstrapServers())) {
      HealthCheck.Result result = check.check();

      assertTrue(result.reachable(), result.detail());
      assertTrue(result.detail().matches("1 broker\\(s\\), cluster id \\S+"), result.detail());
    }
  }

  @Test
  void shouldReuseItsAnswerWithinTheCachePeriod(KafkaBroker kafka) {
    try (KafkaReachability check = KafkaReachability.of(kafka.bootstrapServers(), Duration.ofSeconds(2),
        Duration.ofMinutes(1))) {
      assertSame(check.check(), check.check());
    }
  }

  @Test
  void shouldReportUnreachableWithinItsTimeoutWhenNothingListens() throws Exception {
    int closedPort;
    try (ServerSocket probe = new ServerSocket(0)) {
      closedPort = probe.getLocalPort();
    }
    try (KafkaReachability check = KafkaReachability.of("127.0.0.1:" + closedPort, Duration.ofSeconds(1),
        Duration.ZERO)) {
      long start = System.nanoTime();
      HealthCheck.Result result = check.check();
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertFalse(result.reachable());
      assertFalse(result.detail().isBlank());
      assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "gave up after " + took);
    }
  }
}
