package io.sluice.app.ops;

import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.sluice.config.Secrets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Is Redis answering? Sends {@code PING} and expects {@code PONG} within {@link #DEFAULT_TIMEOUT},
 * reusing the answer for {@link #DEFAULT_CACHE} (see {@link CachedResult}).
 *
 * <p>The ping is a function so that the check can go through the connection the limiter already
 * uses ({@link #of(BaseRedisAsyncCommands)}, standalone or cluster): what matters is whether
 * <em>that</em> connection works, and no second connection has to be opened and closed. While
 * Lettuce is reconnecting, a ping is rejected at once or never answered; both read as
 * unreachable, the second after the timeout.
 */
public final class RedisReachability implements HealthCheck {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration DEFAULT_CACHE = Duration.ofSeconds(1);

  private final Supplier<? extends CompletionStage<String>> ping;
  private final Duration timeout;
  private final CachedResult<HealthCheck.Result> cached;

  /**
   * @param ping      sends one PING; may throw, or return a stage that fails or never completes
   * @param timeout   how long to wait for PONG
   * @param cacheFor  how long an answer is reused
   * @param nanoClock a monotonic clock ({@code System::nanoTime})
   */
  public RedisReachability(Supplier<? extends CompletionStage<String>> ping, Duration timeout,
      Duration cacheFor, LongSupplier nanoClock) {
    this.ping = ping;
    this.timeout = timeout;
    this.cached = new CachedResult<>(cacheFor, nanoClock, this::probe);
  }

  /** Pings through an existing Lettuce connection (standalone or cluster async commands). */
  public static RedisReachability of(BaseRedisAsyncCommands<?, ?> commands) {
    return of(commands::ping);
  }

  /** Pings with {@code ping} ({@code RedisAccess::ping}), with the default timeout and cache. */
  public static RedisReachability of(Supplier<? extends CompletionStage<String>> ping) {
    return new RedisReachability(ping, DEFAULT_TIMEOUT, DEFAULT_CACHE, System::nanoTime);
  }

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public Result check() {
    return cached.get();
  }

  private Result probe() {
    CompletableFuture<String> answer;
    try {
      answer = ping.get().toCompletableFuture();
    } catch (RuntimeException e) {
      return Result.unreachable(describe(e));
    }
    try {
      String reply = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return "PONG".equals(reply)
          ? Result.reachable("PONG")
          : Result.unreachable("PING answered " + reply + " instead of PONG");
    } catch (ExecutionException e) {
      return Result.unreachable(describe(e.getCause() != null ? e.getCause() : e));
    } catch (TimeoutException e) {
      answer.cancel(true);
      return Result.unreachable("no answer to PING within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Result.unreachable("interrupted while asking Redis");
    }
  }

  /** The failure in a line for /health, with anything that looks like a credential masked. */
  private static String describe(Throwable e) {
    return Secrets.scrubLikely(e.getClass().getSimpleName() + ": " + e.getMessage());
  }
}
