package io.sluice.app.cli;

import io.sluice.app.Preflight;
import io.sluice.app.admin.PauseRequest;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.Pause;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.redis.operator.OperatorJournal;
import io.sluice.redis.RedisAccess;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice pause provider|tenant ...} and {@code sluice resume provider|tenant ...}: write or
 * remove a pause in Redis ({@link PauseStore}); every dispatcher honours it within a second.
 * Exit codes: 0 done (a resume of nothing paused says so and is done too), 2 a bad command line or
 * configuration (an unknown provider, an invalid tenant, a reason too long, too many pauses),
 * 3 Redis unreachable.
 */
final class PauseCommands {
  private PauseCommands() {}

  private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(20);

  @Command(name = "pause", mixinStandardHelpOptions = true,
      description = "Stop calling a provider, a tenant, or a tenant on a provider, on every "
          + "dispatcher within a second, until `resume`. Paused events wait (no attempts); "
          + "their deadlines still end them.",
      subcommands = {PauseProvider.class, PauseTenant.class})
  static final class PauseCommand {}

  @Command(name = "resume", mixinStandardHelpOptions = true,
      description = "Lift a pause made with `pause` (name it as it was paused).",
      subcommands = {ResumeProvider.class, ResumeTenant.class})
  static final class ResumeCommand {}

  @Command(name = "provider", mixinStandardHelpOptions = true,
      description = "Pause a provider (or, with --endpoint, one tenant's calls to it).")
  static final class PauseProvider implements Callable<Integer> {
    @Mixin ConfigOption config;
    @Parameters(index = "0", paramLabel = "PROVIDER", description = "A configured provider.")
    String provider;
    @Option(names = "--endpoint", paramLabel = "TENANT",
        description = "Pause only this tenant's calls to the provider.")
    String tenant;
    @Option(names = "--reason", paramLabel = "TEXT", description = "Why (at most 200 characters).")
    String reason;

    @Override
    public Integer call() {
      return pause(config, provider, tenant, reason);
    }
  }

  @Command(name = "tenant", mixinStandardHelpOptions = true,
      description = "Pause a tenant on every provider (or, with --provider, on one).")
  static final class PauseTenant implements Callable<Integer> {
    @Mixin ConfigOption config;
    @Parameters(index = "0", paramLabel = "TENANT", description = "A tenant.")
    String tenant;
    @Option(names = "--provider", paramLabel = "PROVIDER",
        description = "Pause the tenant on this provider only.")
    String provider;
    @Option(names = "--reason", paramLabel = "TEXT", description = "Why (at most 200 characters).")
    String reason;

    @Override
    public Integer call() {
      return pause(config, provider, tenant, reason);
    }
  }

  @Command(name = "provider", mixinStandardHelpOptions = true,
      description = "Resume a provider (or, with --endpoint, one tenant's calls to it).")
  static final class ResumeProvider implements Callable<Integer> {
    @Mixin ConfigOption config;
    @Parameters(index = "0", paramLabel = "PROVIDER", description = "A configured provider.")
    String provider;
    @Option(names = "--endpoint", paramLabel = "TENANT",
        description = "Resume the pause of this tenant's calls to the provider.")
    String tenant;

    @Override
    public Integer call() {
      return resume(config, provider, tenant);
    }
  }

  @Command(name = "tenant", mixinStandardHelpOptions = true,
      description = "Resume a tenant (or, with --provider, its pause on one provider).")
  static final class ResumeTenant implements Callable<Integer> {
    @Mixin ConfigOption config;
    @Parameters(index = "0", paramLabel = "TENANT", description = "A tenant.")
    String tenant;
    @Option(names = "--provider", paramLabel = "PROVIDER",
        description = "Resume the tenant's pause on this provider.")
    String provider;

    @Override
    public Integer call() {
      return resume(config, provider, tenant);
    }
  }

  private static int pause(ConfigOption option, String provider, String tenant, String reason) {
    SluiceConfig config = option.loadForOperator();
    PauseRequest request = checked(config, provider, tenant, reason);
    if (request == null) {
      return Sluice.BAD_INPUT;
    }
    try {
      Pause p = withStore(config, store -> store.pause(request.scope(),
          PauseRequest.localOperator(), request.reason()));
      System.out.println("paused " + p.scope() + " (by " + p.by() + " at " + p.at()
          + (p.reason().isEmpty() ? "" : ": " + p.reason()) + ")");
      return 0;
    } catch (PauseStore.TooManyPauses e) {
      System.err.println(e.getMessage());
      return Sluice.BAD_INPUT;
    }
  }

  private static int resume(ConfigOption option, String provider, String tenant) {
    SluiceConfig config = option.loadForOperator();
    PauseRequest request = checked(config, provider, tenant, null);
    if (request == null) {
      return Sluice.BAD_INPUT;
    }
    boolean was = withStore(config, store -> store.resume(request.scope()));
    System.out.println(was ? "resumed " + request.scope()
        : request.scope() + " was not paused (nothing to resume)");
    return 0;
  }

  /** The request, or null (and why, on standard error) when it is refused. */
  private static PauseRequest checked(SluiceConfig config, String provider, String tenant,
      String reason) {
    try {
      return PauseRequest.of(config, provider, tenant, reason);
    } catch (PauseRequest.Refused e) {
      System.err.println(e.getMessage());
      return null;
    }
  }

  /**
   * Runs one request on the pauses: written to the operator topic first, then to Redis. Kafka or
   * Redis unreachable or silent is exit 3; a change Kafka took is in force even when Redis then
   * fails (every dispatcher reads the topic, and the cache follows it once Redis answers).
   */
  private static <T> T withStore(SluiceConfig config, Function<PauseStore, CompletionStage<T>> op) {
    Preflight.redis(config);
    try (RedisAccess redis = RedisAccess.open(config.redis(), "cli");
        OperatorJournal.Kafka journal = OperatorJournal.open(config)) {
      return op.apply(new PauseStore(redis.commands(), journal)).toCompletableFuture()
          .orTimeout(REDIS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r && r instanceof PauseStore.TooManyPauses) {
        throw r;
      }
      throw new Preflight.Unreachable("the request was not carried out: " + e.getCause());
    }
  }
}
