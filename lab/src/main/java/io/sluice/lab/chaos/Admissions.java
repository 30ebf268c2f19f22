package io.sluice.lab.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.serde.Json;
import java.io.IOException;
import java.time.Duration;
import io.sluice.schemas.topic.HeaderNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;

/**
 * The gate's admission instants, read from {@code sluice.ready}: the gate stamps an admitted record
 * with its admission time, and the relay stamps a paid (reserved) record it returns with its due
 * time, the instant its unit counts in the bucket. A record the dispatcher sent round the ladder
 * (a retry, an overflow) comes back later with the same id, so the earliest instant per id is its
 * admission.
 */
final class Admissions {
  /** Where an event went and its cost. */
  record Key(String provider, String tenant) {}

  private Admissions() {}

  /** (provider, tenant) → admissions sorted by time. */
  static Map<Key, List<OverAdmission.Admission>> read(String bootstrap, String readyTopic,
      Duration timeout) {
    Map<String, Long> earliest = new HashMap<>();
    Map<String, Key> keyOf = new HashMap<>();
    Map<String, Double> costOf = new HashMap<>();
    TopicScan.each(bootstrap, readyTopic, timeout, r -> {
      JsonNode event = parse(r.value());
      if (event == null || !event.hasNonNull("id")) {
        return;
      }
      String id = event.get("id").asText();
      earliest.merge(id, r.timestamp(), Math::min);
      keyOf.putIfAbsent(id, new Key(event.path("provider").asText(),
          event.path("tenant").asText()));
      costOf.putIfAbsent(id, event.path("cost").asDouble(1));
    });
    Map<Key, List<OverAdmission.Admission>> byKey = new HashMap<>();
    earliest.forEach((id, at) -> byKey.computeIfAbsent(keyOf.get(id), k -> new ArrayList<>())
        .add(new OverAdmission.Admission(at, costOf.get(id))));
    byKey.values().forEach(l -> l.sort((a, b) -> Long.compare(a.atMillis(), b.atMillis())));
    return byKey;
  }

  /**
   * Ids the producer wrote to {@code sluice.inbound} more than once (a retried produce the broker
   * had written): records without any header are the producer's, the gate's own returns to
   * inbound carry {@code sluice-*} headers.
   */
  static Set<String> producedTwice(String bootstrap, String inboundTopic, Duration timeout) {
    Map<String, Integer> copies = new HashMap<>();
    TopicScan.each(bootstrap, inboundTopic, timeout, r -> {
      JsonNode event = parse(r.value());
      if (r.headers().toArray().length == 0 && event != null && event.hasNonNull("id")) {
        copies.merge(event.get("id").asText(), 1, Integer::sum);
      }
    });
    Set<String> twice = new HashSet<>();
    copies.forEach((id, n) -> {
      if (n > 1) {
        twice.add(id);
      }
    });
    return twice;
  }

  /**
   * Ids with byte-identical records in {@code sluice.ready} (same timestamp, headers and value):
   * one record released twice. A record the relay returned carries {@code sluice-return-to}; one
   * the gate wrote directly does not. A retry or an overflow comes back with other headers, so it
   * is not a copy.
   */
  static Map<String, DuplicateCauses.ReadyCopies> identicalCopies(String bootstrap,
      String readyTopic, Duration timeout) {
    Map<String, Integer> seen = new HashMap<>();
    Map<String, int[]> extra = new HashMap<>();
    TopicScan.each(bootstrap, readyTopic, timeout, r -> {
      JsonNode event = parse(r.value());
      if (event == null || !event.hasNonNull("id")) {
        return;
      }
      String id = event.get("id").asText();
      StringBuilder signature = new StringBuilder(id).append('|').append(r.timestamp());
      boolean relayed = false;
      for (Header h : r.headers()) {
        relayed |= h.key().equals(HeaderNames.RETURN_TO);
        signature.append('|').append(h.key()).append('=')
            .append(h.value() == null ? "" : Base64.getEncoder().encodeToString(h.value()));
      }
      signature.append('|').append(Arrays.hashCode(r.value()));
      if (seen.merge(signature.toString(), 1, Integer::sum) > 1) {
        extra.computeIfAbsent(id, k -> new int[2])[relayed ? 0 : 1]++;
      }
    });
    Map<String, DuplicateCauses.ReadyCopies> copies = new HashMap<>();
    extra.forEach((id, n) -> copies.put(id, new DuplicateCauses.ReadyCopies(n[0], n[1])));
    return copies;
  }

  private static JsonNode parse(byte[] value) {
    try {
      return value == null ? null : Json.mapper().readTree(value);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
