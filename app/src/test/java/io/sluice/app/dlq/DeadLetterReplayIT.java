package io.sluice.app.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.AppConfigFile;
import io.sluice.app.CliRun;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.RealServers;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dlq replay} on a real broker: a replay that crashed before its commit neither loses nor
 * doubles what it had sent, and the same replay run twice sends nothing the second time.
 *
 * <p>The dead-letter topic holds four {@code non_retryable_4xx} dead letters with their values,
 * one without (left out, too large) and one {@code max_attempts}. A first replay "crashes": it
 * fences, sends two events and their ledger records in its transaction, and never commits (its
 * producer is left open, like a process that hangs). Then the operator's replay runs. Its fence
 * aborts the crashed transaction, so it reads an empty ledger, and sends the four; the crashed
 * run's commit, if it ever came, is refused. The second operator's replay finds all four in the
 * ledger and sends nothing.
 */
@ExtendWith(RealServers.class)
class DeadLetterReplayIT {
  private static final List<String> IDS = List.of("r-0", "r-1", "r-2", "r-3");

  @TempDir
  Path dir;

  @Test
  @DisplayName("a crashed replay loses and doubles nothing; the same replay twice sends nothing twice")
  void shouldReplayEachDeadLetterOnceThroughACrashAndARerun(KafkaBroker kafka) throws Exception {
    AppConfigFile file = AppConfigFile.write(dir, kafka.bootstrapServers(), "redis://127.0.0.1:1",
        URI.create("http://127.0.0.1:1/"), Map.of());
    CliRun create = CliRun.of("topics", "create", "--config", file.file().toString(),
        "--partitions", "2");
    assertEquals(0, create.exitCode(), create.output());
    assertTrue(create.out().contains(file.prefix() + "replays"), create.output());
    SluiceConfig config = file.load();
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    writeDeadLetters(kafka, topics, file);

    // The crashed run: fenced, two events and their ledger records sent, no commit.
    Replayer crashed = new Replayer(config.kafka(), topics);
    crashed.fence();
    crashed.begin();
    DeadLetterQuery all4xx = DeadLetterQuery.parse("non_retryable_4xx", null, null, null, 100);
    DlqOperations.ReplayReport planned = DlqOperations.replay(config.kafka(), topics,
        DeadLetterQuery.parse("non_retryable_4xx", null, null, null, 2), Instant.now(),
        Duration.ofSeconds(20), true);
    assertEquals(2, planned.sent().size(), "a dry run reads without fencing the crashed run");
    List<DeadLetterEntry> firstTwo = new ArrayList<>();
    readDlq(kafka, topics, e -> {
      if (firstTwo.size() < 2 && all4xx.matches(e) && e.value() != null) {
        firstTwo.add(e);
      }
    });
    crashed.send(firstTwo, Instant.now(), "crashed-run");

    CliRun replay = CliRun.of("dlq", "replay", "--reason", "non_retryable_4xx", "--config",
        file.file().toString());

    assertEquals(0, replay.exitCode(), replay.output());
    assertTrue(replay.out().contains("sent 4 events to " + topics.inbound()
        + "; skipped {NO_VALUE=1}"), replay.output());
    KafkaException refused = assertThrows(KafkaException.class, crashed::commit,
        "the crashed run, fenced, can never commit what it sent");
    crashed.close();
    assertNotNull(refused);

    List<Replayed> inbound = readInbound(kafka, topics);
    assertEquals(IDS, inbound.stream().map(Replayed::id).sorted().toList(),
        "each dead letter's event once, the crashed run's two not at all: " + inbound);
    for (Replayed r : inbound) {
      assertTrue(r.mark().startsWith(topics.dlq() + "-"), r.toString());
      assertFalse(r.sluiceHeaders(), "no sluice-* header goes back to inbound: " + r);
      assertEquals("acme", r.key());
    }

    CliRun again = CliRun.of("dlq", "replay", "--reason", "non_retryable_4xx", "--config",
        file.file().toString(), "--json");

    assertEquals(0, again.exitCode(), again.output());
    assertTrue(again.out().replaceAll("\\s", "").contains(
        "\"sent\":[],\"skipped\":{\"ALREADY_REPLAYED\":4,\"NO_VALUE\":1}"), again.output());
    assertEquals(4, readInbound(kafka, topics).size(), "the second replay sent nothing");

    CliRun list = CliRun.of("dlq", "list", "--config", file.file().toString(), "--tenant", "acme",
        "--since", "1h");
    assertEquals(0, list.exitCode(), list.output());
    assertTrue(list.out().contains("6 dead letters shown (6 records read)"), list.output());
    assertTrue(list.out().contains("max_attempts"), list.output());
    assertTrue(list.out().contains("no-value"), list.output());
  }

  private record Replayed(String id, String key, String mark, boolean sluiceHeaders) {}

  private static void writeDeadLetters(KafkaBroker kafka, Topics topics, AppConfigFile file)
      throws Exception {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      byte[] acme = "acme".getBytes(StandardCharsets.UTF_8);
      for (String id : IDS) {
        p.send(new ProducerRecord<>(topics.dlq(), null, null, acme,
            file.event(id, "acme").getBytes(StandardCharsets.UTF_8),
            Letters.headers("non_retryable_4xx", id))).get();
      }
      p.send(new ProducerRecord<>(topics.dlq(), null, null, acme, null,
          Letters.headers("non_retryable_4xx", "r-too-large"))).get();
      p.send(new ProducerRecord<>(topics.dlq(), null, null, acme,
          file.event("r-tired", "acme").getBytes(StandardCharsets.UTF_8),
          Letters.headers("max_attempts", "r-tired"))).get();
    }
  }

  private static void readDlq(KafkaBroker kafka, Topics topics,
      java.util.function.Consumer<DeadLetterEntry> each) {
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka)) {
      BoundedScan.read(c, topics.dlq(), Optional.empty(), Duration.ofSeconds(20), r -> {
        each.accept(DeadLetterEntry.of(r));
        return true;
      });
    }
  }

  private static List<Replayed> readInbound(KafkaBroker kafka, Topics topics) {
    List<Replayed> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka)) {
      BoundedScan.read(c, topics.inbound(), Optional.empty(), Duration.ofSeconds(20), r -> {
        boolean sluice = false;
        for (Header h : r.headers()) {
          sluice |= HeaderNames.isSluice(h.key());
        }
        Header mark = r.headers().lastHeader(ReplayMark.HEADER);
        out.add(new Replayed(DeadLetterEntry.of(r).eventId(),
            new String(r.key(), StandardCharsets.UTF_8),
            mark == null ? "" : new String(mark.value(), StandardCharsets.UTF_8), sluice));
        return true;
      });
    }
    return out;
  }

  private static KafkaConsumer<byte[], byte[]> consumer(KafkaBroker kafka) {
    return new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.CLIENT_ID_CONFIG, "dlq-it-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
