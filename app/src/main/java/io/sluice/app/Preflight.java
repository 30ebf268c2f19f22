package io.sluice.app;

import io.lettuce.core.ScriptOutputType;
import io.sluice.redis.RedisConnection;
import io.sluice.config.ConfigException;
import io.sluice.config.SluiceConfig;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Checks that the servers a command needs answer, before anything starts, and turns a missing
 * server into one message that says what to start and how: not a stack trace, and not a client
 * that retries silently forever. A Kafka that answers but refuses (SASL, TLS, a host that does
 * not resolve: {@link KafkaFailure}) is a {@link ConfigException} (exit 2), named as such.
 */
public final class Preflight {
  /** A server is missing; the message is meant for the user as it is. */
  public static final class Unreachable extends RuntimeException {
    public Unreachable(String message) {
      super(message);
    }
  }

  private Preflight() {}

  public static void kafka(SluiceConfig config) {
    String bootstrap = config.kafka().bootstrap();
    try (Admin admin = Admin.create(config.kafka().clientProperties(Map.of(
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000,
        AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000)))) {
      admin.describeCluster().clusterId().get(6, TimeUnit.SECONDS);
    } catch (Exception e) {
      KafkaFailure failure = KafkaFailure.of(e);
      if (failure.kind() == KafkaFailure.Kind.NO_ANSWER) {
        failure = failure.given(tls(config), ListenerProbe.probe(bootstrap, 2000),
            bootstrap.split(",")[0].trim());
      }
      if (failure.configurationFault()) {
        throw new ConfigException(failure.message(bootstrap), e);
      }
      throw new Unreachable(failure.message(bootstrap));
    }
  }

  /** Whether the Kafka clients are configured to speak TLS. */
  private static boolean tls(SluiceConfig config) {
    String protocol = config.kafka().properties().getOrDefault("security.protocol", "PLAINTEXT");
    return protocol.equalsIgnoreCase("SSL") || protocol.equalsIgnoreCase("SASL_SSL");
  }

  public static void redis(SluiceConfig config) {
    try (RedisConnection redis = RedisConnection.open(config.redis())) {
      redis.commands().eval("return 1", ScriptOutputType.INTEGER)
          .toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Unreachable e) {
      throw e;
    } catch (RedisConnection.CredentialsRefused e) {
      throw new Unreachable(e.getMessage());
    } catch (Exception e) {
      throw new Unreachable("Redis is not reachable at " + config.redis().redactedUri() + ".\n"
          + "  Start one there (Debian: `sudo apt-get install -y redis-server`, then "
          + "`redis-server --port 6379 --save '' --daemonize yes`; or `docker compose up -d "
          + "redis`), or point Sluice at yours with redis.uri in the config file or "
          + "SLUICE_REDIS__URI=redis://host:port.\n"
          + "  (" + rootMessage(e) + ")");
    }
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

}
