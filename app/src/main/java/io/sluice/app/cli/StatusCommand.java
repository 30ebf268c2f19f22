package io.sluice.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.Preflight;
import io.sluice.app.admin.StatusReader;
import io.sluice.app.admin.StatusText;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.OperatorText;
import io.sluice.dispatcher.pause.PauseScope;
import io.sluice.redis.RedisAccess;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sluice status [--provider P] [--tenant T] [--json]}: what Redis and Kafka say now
 * ({@link StatusReader}). Exit 0 when shown (parts that could not be read are named in it),
 * 2 for an unknown provider or an invalid tenant, 3 when Kafka or Redis is unreachable.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show providers (rates, learned limits, pauses), events waiting in each stage, "
        + "dead letters of the last hour and, with --tenant, a tenant's tier and buckets.")
final class StatusCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--provider", paramLabel = "PROVIDER", description = "Only this provider.")
  String provider;

  @Option(names = "--tenant", paramLabel = "TENANT", description = "This tenant's tier and buckets.")
  String tenant;

  @Option(names = "--json", description = "Print JSON (the same as GET /admin/status).")
  boolean json;

  @Override
  public Integer call() {
    SluiceConfig c = config.loadForOperator();
    if (provider != null && !c.providers().containsKey(provider)) {
      System.err.println("no provider \"" + OperatorText.clean(provider, 60)
          + "\" is configured; configured: " + String.join(", ", c.providers().keySet()));
      return Sluice.BAD_INPUT;
    }
    if (tenant != null) {
      try {
        PauseScope.checkName("tenant", tenant);
      } catch (IllegalArgumentException e) {
        System.err.println(e.getMessage());
        return Sluice.BAD_INPUT;
      }
    }
    Preflight.kafka(c);
    Preflight.redis(c);
    try (RedisAccess redis = RedisAccess.open(c.redis(), "cli");
        Admin admin = Admin.create(c.kafka().clientProperties(Map.of(
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)))) {
      ObjectNode status = new StatusReader(c, redis.commands(), admin, () -> StatusReader.deadLetterReader(c),
          Clock.systemUTC()).read(Optional.ofNullable(provider), Optional.ofNullable(tenant));
      System.out.print(json ? status.toPrettyString() + "\n" : StatusText.render(status));
      return 0;
    }
  }
}
