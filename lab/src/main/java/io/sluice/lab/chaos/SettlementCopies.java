package io.sluice.lab.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Settlements written twice (issue 34), counted apart from calls made twice. A settlement is a
 * record a dispatcher writes to take an event on: an outcome, a retry or deferral to a delay
 * step, a dead letter. Two kinds of double are counted, both 0 in a sound run:
 * <ul>
 *   <li><b>identical copies</b>: a settlement record byte-identical to another (topic, key, value
 *       and headers): one settlement written twice, as a produce resent after a timeout that the
 *       broker had in fact written does; a copy in a delay step is a second call later;</li>
 *   <li><b>extra endings</b>: an event ended (an outcome or a dead letter) more times than it was
 *       delivered (at least once): an event settled again without being called again, as a
 *       record handled a second time from the delivered log would be.</li>
 * </ul>
 * A record handled twice with a call each time is a duplicate call ({@link DuplicateCauses}), its
 * two settlements expected; it is not counted here. Copies are looked for among the endings
 * (outcomes, dead letters): a dispatcher's settlement names the ready record it settles
 * ({@code sluice-settles}) and is timestamped when its call's answer was judged (a resent record and
 * the sweeper's copy keep the timestamp): two endings naming one record with the same timestamp and
 * value are one settlement written twice (resent, or copied by the hanging-transaction sweeper with
 * its own stamp), whatever their headers; two with different ones are two calls' settlements (a partition's next owner
 * calling a record whose first call's outcome landed just before its owner's SIGKILL), the calls
 * counted as duplicates, and an ending beyond the event's calls is an extra ending. Not in the delay steps: the relay writes a record not yet due to its
 * step again as it was, headers and all (a ladder hop, not a settlement), so a copy there cannot
 * be told from a hop; a retry written twice is read once ({@code RecentSettlements}), and called
 * twice it would be a duplicate call.
 */
final class SettlementCopies {
  /** How many examples the report names. */
  static final int EXAMPLES = 5;

  private final Map<String, Integer> signatures = new HashMap<>();
  private final Map<String, Integer> endings = new HashMap<>();
  private final Map<String, Long> copiesByTopic = new TreeMap<>();
  private final List<String> examples = new ArrayList<>();
  private long settlements;

  /**
   * One settlement record: its topic, its signature (null: not a dispatcher's, no copy counted),
   * event id (null if unreadable), whether it ends the event.
   */
  void add(String topic, String signature, String eventId, boolean ending) {
    settlements++;
    String key = signature == null ? null
        : signature.startsWith(SETTLES_KEY) ? signature : topic + '|' + signature;
    if (key != null && signatures.merge(key, 1, Integer::sum) > 1) {
      copiesByTopic.merge(topic, 1L, Long::sum);
      if (examples.size() < EXAMPLES) {
        examples.add(topic + " " + eventId);
      }
    }
    if (ending && eventId != null) {
      endings.merge(eventId, 1, Integer::sum);
    }
  }

  /** @param delivered each event's 2xx answers at the providers, by id */
  Map<String, Object> figures(Map<String, Integer> delivered) {
    long extraEndings = 0;
    List<String> extraExamples = new ArrayList<>();
    for (Map.Entry<String, Integer> e : endings.entrySet()) {
      int extra = e.getValue() - Math.max(1, delivered.getOrDefault(e.getKey(), 0));
      if (extra > 0) {
        extraEndings += extra;
        if (extraExamples.size() < EXAMPLES) {
          extraExamples.add(e.getKey());
        }
      }
    }
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("settlements", settlements);
    f.put("identicalCopies", copiesByTopic.values().stream().mapToLong(Long::longValue).sum());
    f.put("identicalCopiesByTopic", copiesByTopic);
    f.put("identicalCopyExamples", examples);
    f.put("extraEndings", extraEndings);
    f.put("extraEndingExamples", extraExamples);
    return f;
  }

  /** What fails the run: any settlement written twice. */
  static List<String> failures(Map<String, Object> figures) {
    List<String> failures = new ArrayList<>();
    long copies = ((Number) figures.get("identicalCopies")).longValue();
    long extra = ((Number) figures.get("extraEndings")).longValue();
    if (copies > 0) {
      failures.add(copies + " settlements written twice (a ready record settled twice, or identical records) "
          + figures.get("identicalCopiesByTopic"));
    }
    if (extra > 0) {
      failures.add(extra + " events ended more often than delivered "
          + figures.get("extraEndingExamples"));
    }
    return failures;
  }

  /**
   * Reads every settlement topic ({@code endings}: outcomes and the dead letters; the others: the
   * delay steps) and tallies them.
   */
  static Map<String, Object> read(String bootstrap, List<String> endingTopics,
      List<String> otherTopics, Map<String, Integer> delivered, Duration timeout) {
    SettlementCopies tally = new SettlementCopies();
    for (String topic : endingTopics) {
      TopicScan.each(bootstrap, topic, timeout, r -> tally.add(topic, dispatchers(r), idOf(r), true));
    }
    for (String topic : otherTopics) {
      TopicScan.each(bootstrap, topic, timeout, r -> tally.add(topic, null, idOf(r), false));
    }
    return tally.figures(delivered);
  }

  /** How a signature naming the ready record settled begins: it counts across topics. */
  static final String SETTLES_KEY = "settles ";

  /**
   * An ending's signature: the ready record it settles, its timestamp and value when it names one (the same
   * settlement whatever topic or stamp a copy has), else its bytes (a gate's dead letter of a
   * malformed record).
   */
  static String dispatchers(ConsumerRecord<byte[], byte[]> r) {
    Header settles = r.headers().lastHeader(HeaderNames.SETTLES);
    return settles != null && settles.value() != null
        ? SETTLES_KEY + new String(settles.value(), StandardCharsets.UTF_8) + '|' + r.timestamp()
            + '|' + Arrays.hashCode(r.value()) + '|' + (r.value() == null ? 0 : r.value().length)
        : signature(r);
  }

  /** Key, value and every header: what a record resent as it was shares with its first copy. */
  static String signature(ConsumerRecord<byte[], byte[]> r) {
    StringBuilder s = new StringBuilder()
        .append(r.key() == null ? "-" : Base64.getEncoder().encodeToString(r.key())).append('|')
        .append(Arrays.hashCode(r.value())).append('|').append(r.value() == null ? 0 : r.value().length);
    for (Header h : r.headers()) {
      s.append('|').append(h.key()).append('=')
          .append(h.value() == null ? "" : Base64.getEncoder().encodeToString(h.value()));
    }
    return s.toString();
  }

  private static String idOf(ConsumerRecord<byte[], byte[]> r) {
    Header id = r.headers().lastHeader(HeaderNames.EVENT_ID);
    if (id != null && id.value() != null) {
      return new String(id.value(), StandardCharsets.UTF_8);
    }
    try {
      JsonNode n = r.value() == null ? null : Json.mapper().readTree(r.value());
      return n != null && n.hasNonNull("id") ? n.get("id").asText() : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
