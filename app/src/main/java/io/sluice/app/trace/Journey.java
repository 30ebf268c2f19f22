package io.sluice.app.trace;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.Topics;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What each record of one event says about its journey, in time order. Pure: the records found
 * in (their topic, coordinates, timestamp, headers and value), the stages out.
 *
 * <p>Where a record is says what happened: {@code inbound} a producer wrote it; {@code regate} it
 * went back to the gate; {@code ready} the gate admitted it, or the relay released it there at its
 * time ({@code sluice-return-to}); a delay step it waits (its {@code sluice-reason}: a quota, an
 * overflow, a parked lane, a failed attempt); {@code outcomes} it was delivered (status, attempts,
 * latency); the dead-letter topic it ended there (reason, detail). A record of the gate's decision
 * tells when the gate expected the event at its provider ({@code sluice-eta}, as {@code eta}).
 */
public final class Journey {
  /** One record of the event, as found. */
  public record Sighting(String topic, int partition, long offset, long timestampMillis,
      Map<String, String> headers, byte[] value) {}

  /** One stage: when, where ({@code topic-partition@offset}), what happened, and its details. */
  public record Stage(Instant at, String where, String what, Map<String, String> details) {}

  private Journey() {}

  /** The stages of {@code sightings} (any order), oldest first. */
  public static List<Stage> of(Topics topics, List<Sighting> sightings) {
    List<Sighting> sorted = new ArrayList<>(sightings);
    sorted.sort(Comparator.comparingLong(Sighting::timestampMillis)
        .thenComparingInt(s -> rank(topics, s.topic())));
    List<Stage> stages = new ArrayList<>();
    for (Sighting s : sorted) {
      stages.add(new Stage(Instant.ofEpochMilli(s.timestampMillis()),
          s.topic() + "-" + s.partition() + "@" + s.offset(), what(topics, s), details(topics, s)));
    }
    return stages;
  }

  /** Within one millisecond, the pipeline's order: produced before admitted before settled. */
  private static int rank(Topics topics, String topic) {
    if (topic.equals(topics.inbound())) {
      return 0;
    }
    if (topic.equals(topics.regate())) {
      return 1;
    }
    if (topics.readyTopics().contains(topic)) {
      return 2;
    }
    return topic.equals(topics.outcomes()) || topic.equals(topics.dlq()) ? 4 : 3;
  }

  private static String what(Topics topics, Sighting s) {
    String t = s.topic();
    Map<String, String> h = s.headers();
    if (t.equals(topics.inbound())) {
      return "produced";
    }
    if (t.equals(topics.regate())) {
      return "sent back to the gate (regate)";
    }
    if (topics.readyTopics().contains(t)) {
      String ready = t.equals(topics.ready()) ? "ready" : "ready.high";
      return h.containsKey(HeaderNames.RETURN_TO) ? "released to " + ready + " by the relay, at its time"
          : "admitted by the gate" + (t.equals(topics.ready()) ? "" : " (class high: ready.high)");
    }
    if (t.equals(topics.outcomes())) {
      return "delivered";
    }
    if (t.equals(topics.dlq())) {
      return "dead-lettered: " + h.getOrDefault(HeaderNames.REASON, "no reason given");
    }
    return "waits in " + t + ": " + h.getOrDefault(HeaderNames.REASON, "no reason given");
  }

  private static Map<String, String> details(Topics topics, Sighting s) {
    Map<String, String> d = new LinkedHashMap<>();
    Map<String, String> h = s.headers();
    copy(h, HeaderNames.TIER, "tier", d);
    copy(h, HeaderNames.ATTEMPT, "attempt", d);
    if (!s.topic().equals(topics.dlq())) {
      instant(h, HeaderNames.NOT_BEFORE, "notBefore", d);
    }
    if (byTheGate(topics, s)) {
      instant(h, HeaderNames.ETA, "eta", d);
    }
    copy(h, HeaderNames.DETAIL, "detail", d);
    copy(h, HeaderNames.SOURCE, "source", d);
    if (s.topic().equals(topics.outcomes())) {
      JsonNode outcome = parse(s.value());
      if (outcome != null) {
        for (String field : List.of("status", "attempts", "latencyMs", "provider", "tenant")) {
          if (outcome.hasNonNull(field)) {
            d.put(field, outcome.get(field).asText());
          }
        }
      }
    }
    return d;
  }

  /**
   * Whether the gate's decision wrote this record (so its {@code sluice-eta} is that decision's):
   * admitted to ready, or deferred by the quota. A later writer (the relay's release, a
   * dispatcher's retry) copies the header unchanged.
   */
  private static boolean byTheGate(Topics topics, Sighting s) {
    Map<String, String> h = s.headers();
    if (topics.readyTopics().contains(s.topic())) {
      return !h.containsKey(HeaderNames.RETURN_TO);
    }
    return topics.delays().contains(s.topic())
        && Reason.RATE_LIMITED.code().equals(h.get(HeaderNames.REASON));
  }

  /** An epoch-ms header as an ISO instant (as written when it is not a number). */
  private static void instant(Map<String, String> h, String header, String as,
      Map<String, String> d) {
    String v = h.get(header);
    if (v != null) {
      try {
        d.put(as, Instant.ofEpochMilli(Long.parseLong(v)).toString());
      } catch (NumberFormatException e) {
        d.put(as, v);
      }
    }
  }

  private static void copy(Map<String, String> h, String header, String as, Map<String, String> d) {
    String v = h.get(header);
    if (v != null) {
      d.put(as, v);
    }
  }

  private static JsonNode parse(byte[] value) {
    try {
      return value == null ? null : Json.mapper().readTree(value);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
