package io.sluice.app.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.ops.CachedResult;
import io.sluice.config.SluiceConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * The status's two costly parts, read from Kafka: the consumer lag (one Admin round) and the
 * last hour's dead letters by reason (a scan of up to {@value StatusReader#MAX_DEAD_LETTERS}
 * records). The console polls {@code GET /admin/status} every second, and every console open
 * polls; so an instance keeps each part's last answer for {@link #SHARED} and gives it to every
 * request in that time ({@link CachedResult}): however many consoles poll, at most one scan of
 * the dead letters and one lag read run at a time, and at most one of each per period. A part
 * that could not be read is kept as well (its error), so a Kafka that does not answer is not
 * asked again by each request queued behind the one that waited.
 *
 * <p>Each part says when it was read, {@code "asOf"} (an ISO instant, the time of this clock
 * less the answer's age), so a reader knows how old the figures are. Both clocks are passed
 * in.
 */
public final class StatusCache {
  /** How long an instance reuses a part: under the console's one-second polling, every other poll. */
  public static final Duration SHARED = Duration.ofSeconds(2);

  /** A part's answer: its JSON, or why it could not be read. */
  record Part(ObjectNode value, String error) {
    static Part read(Supplier<ObjectNode> reader) {
      try {
        return new Part(reader.get(), null);
      } catch (RuntimeException e) {
        return new Part(null, StatusReader.message(e));
      }
    }
  }

  /** A part as a request sees it: the shared answer and when it was read. */
  record Seen(Part part, Instant asOf) {
    /** Puts a copy of the part, with its {@code "asOf"}, in {@code out}, or its error in {@code errors}. */
    void into(ObjectNode out, ObjectNode errors, String name) {
      if (part.error() != null) {
        errors.put(name, part.error());
        return;
      }
      ObjectNode copy = part.value().deepCopy();
      copy.put("asOf", asOf.toString());
      out.set(name, copy);
    }
  }

  private final Clock clock;
  private final CachedResult<Part> waiting;
  private final CachedResult<Part> deadLetters;

  /**
   * @param ttl         how long a part is reused; zero reads it for every request
   * @param nanoClock   a monotonic clock in nanoseconds ({@code System::nanoTime})
   * @param clock       the wall clock for {@code "asOf"}
   * @param waiting     reads the consumer lag
   * @param deadLetters reads the last hour's dead letters by reason
   */
  StatusCache(Duration ttl, LongSupplier nanoClock, Clock clock, Supplier<ObjectNode> waiting,
      Supplier<ObjectNode> deadLetters) {
    this.clock = clock;
    this.waiting = new CachedResult<>(ttl, nanoClock, () -> Part.read(waiting));
    this.deadLetters = new CachedResult<>(ttl, nanoClock, () -> Part.read(deadLetters));
  }

  /** The parts of an instance, read with the configuration in force, shared for {@link #SHARED}. */
  public static StatusCache shared(Supplier<SluiceConfig> config, Admin admin, Clock clock) {
    return of(SHARED, config, admin, () -> StatusReader.deadLetterReader(config.get()), clock);
  }

  /** The parts read anew for every request. */
  static StatusCache uncached(Supplier<SluiceConfig> config, Admin admin,
      Supplier<Consumer<byte[], byte[]>> dlqReader, Clock clock) {
    return of(Duration.ZERO, config, admin, dlqReader, clock);
  }

  private static StatusCache of(Duration ttl, Supplier<SluiceConfig> config, Admin admin,
      Supplier<Consumer<byte[], byte[]>> dlqReader, Clock clock) {
    return new StatusCache(ttl, System::nanoTime, clock,
        () -> StatusReader.waiting(config.get(), admin),
        () -> StatusReader.deadLetters(config.get(), dlqReader, clock));
  }

  Seen waiting() {
    return seen(waiting.aged());
  }

  Seen deadLetters() {
    return seen(deadLetters.aged());
  }

  private Seen seen(CachedResult.Aged<Part> aged) {
    return new Seen(aged.value(), clock.instant().minus(aged.age()));
  }
}
