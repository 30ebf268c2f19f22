package io.sluice.relay;

import static io.sluice.relay.ScriptedRelay.ONE_SECOND;
import static io.sluice.relay.ScriptedRelay.ONE_SECOND_1;
import static io.sluice.relay.ScriptedRelay.TOPICS;
import static io.sluice.relay.ScriptedRelay.bytes;
import static io.sluice.relay.ScriptedRelay.paid;
import static io.sluice.relay.ScriptedRelay.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.schemas.offsets.SettledOffsetsCodec;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The relay's loop on a mock consumer and producer, step by step: what it commits, and when it
 * releases. The same guarantees against a real broker are in {@code RelayIT}.
 */
class RelayTest {

  @Test
  @DisplayName("a failed produce followed by a close commits nothing past the unwritten records")
  void shouldNeverCommitPastARecordWhoseProduceFailed() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.append("b", now - 1000, paid(now - 10));
    s.append("c", now - 1000, paid(now - 10));
    s.producer.failing = new TimeoutException("batch expired");
    s.then(() -> assertEquals(1, s.producer.aborts, "the round was aborted"));
    s.run();

    assertEquals(List.of(), s.acknowledged(), "nothing was written");
    assertEquals(0, s.highestCommitted(ONE_SECOND), "no commit covers a record that was never written: " + s.commits());
    assertNull(s.died(), "the relay closed cleanly");
  }

  @Test
  @DisplayName("after a failed produce the relay waits a second, writes the records again, and commits them only once acknowledged")
  void shouldRelayAgainAfterAFailedProduceAndCommitOnlyAcknowledged() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.append("b", now - 1000, paid(now - 10));
    s.producer.failing = new TimeoutException("batch expired");
    s.then(() -> {
      assertEquals(0, s.highestCommitted(ONE_SECOND), "nothing committed after the failed round");
      s.producer.failing = null; // the broker is back
    });
    s.then(() -> {});
    s.then(() -> {
      assertEquals(List.of(), s.acknowledged(), "not asked again at once");
      s.clock.setMillis(now + Relay.RETRY_MILLIS);
    });
    s.then(() -> {});
    s.then(() -> assertEquals(2, s.highestCommitted(ONE_SECOND), "committed once written"));
    s.run();

    assertEquals(List.of("a", "b"), s.acknowledged().stream().map(r -> text(r.value())).toList());
    assertEquals(2, s.highestCommitted(ONE_SECOND));
    assertNull(s.died());
  }

  @Test
  @DisplayName("a failed produce aborts its round: nothing of it is seen or committed, and every record of it is relayed again, once")
  void shouldAbortTheRoundOfAFailedProduceAndRelayItAgainOnce() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.append("b", now - 1000, paid(now - 10));
    s.append("c", now - 1000, paid(now - 10));
    s.append(ScriptedRelay.ONE_SECOND_1, bytes("d"), bytes("d"), now - 1000, paid(now - 10));
    s.producer.failing = new TimeoutException("batch expired");
    s.producer.failOnly = r -> text(r.value()).equals("b");
    s.then(() -> {
      assertEquals(1, s.producer.aborts, "the round was aborted");
      assertEquals(List.of(), s.acknowledged(), "a, c and d were acknowledged, but in the aborted transaction");
      assertEquals(List.of(), s.commits(), "no offset committed");
      s.producer.failing = null;
      s.clock.setMillis(now + Relay.RETRY_MILLIS);
    });
    s.run();

    assertEquals(List.of("a", "b", "c", "d"), s.acknowledged().stream().map(r -> text(r.value())).sorted().toList(),
        "each record seen once");
    assertEquals(3, s.highestCommitted(ONE_SECOND));
    assertEquals(1, s.highestCommitted(ScriptedRelay.ONE_SECOND_1));
  }

  @Test
  @DisplayName("releases nothing before Redis's clock was sampled once, whatever the host's clock says (issue 34, 8)")
  void shouldReleaseNothingBeforeRedisTimeWasSampledOnce() {
    // A relay started while Redis is down reads the host's clock; a host ahead of Redis would
    // release this record before its not-before on Redis's clock. Before issue 34 it went at the
    // first round.
    ScriptedRelay s = new ScriptedRelay();
    s.onRedisTime[0] = false;
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.then(() -> s.clock.setMillis(now + 5_000));
    s.then(() -> {
      assertEquals(List.of(), s.acknowledged(), "nothing released on the host's clock alone");
      s.onRedisTime[0] = true;
    });
    s.run();

    assertEquals(List.of("a"), s.acknowledged().stream().map(r -> text(r.value())).toList(),
        "released once Redis's clock was sampled");
  }

  @Test
  @DisplayName("commits each round in a transaction, with the offsets past its records sent for the relay's group, never by the consumer")
  void shouldCommitTheOffsetsWithTheRecordsInOneTransaction() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.then(() -> {
      assertTrue(s.producer.transactionCommitted(), "the first round committed");
      assertEquals(List.of(Map.of(ONE_SECOND, new OffsetAndMetadata(1))), s.commits());
      s.append("b", now - 1000, paid(now - 10));
    });
    s.run();

    assertEquals(List.of("a", "b"), s.acknowledged().stream().map(r -> text(r.value())).toList());
    assertEquals(List.of(Map.of(ONE_SECOND, new OffsetAndMetadata(1)), Map.of(ONE_SECOND, new OffsetAndMetadata(2))),
        s.commits(), "one commit per round, each in its transaction");
    assertEquals(List.of(), s.consumer.commits, "the consumer itself commits nothing");
    assertEquals(2, s.producer.commitCount());
  }

  @Test
  @DisplayName("a commit the coordinator refuses (a rebalance fenced the group generation) aborts the round, which is relayed again")
  void shouldAbortAndRelayAgainWhenTheCommitFails() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.producer.commitTransactionException = new org.apache.kafka.clients.consumer.CommitFailedException();
    s.then(() -> {
      assertEquals(1, s.producer.aborts);
      assertEquals(List.of(), s.acknowledged());
      s.producer.commitTransactionException = null;
      s.clock.setMillis(now + Relay.RETRY_MILLIS);
    });
    s.run();

    assertEquals(List.of("a"), s.acknowledged().stream().map(r -> text(r.value())).toList());
    assertEquals(1, s.highestCommitted(ONE_SECOND));
  }

  @Test
  @DisplayName("a record too large for its return topic is dead-lettered with the reason, not sent again for ever")
  void shouldDeadLetterARecordKafkaRefusesAsTooLarge() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("huge", now - 1000, paid(now - 10));
    s.append("fine", now - 1000, paid(now - 10));
    s.producer.failing = new RecordTooLargeException("The message is 2000000 bytes when serialized");
    s.producer.failOnly = r -> r.topic().equals(TOPICS.ready()) && text(r.value()).equals("huge");
    s.then(() -> {});
    s.run();

    List<ProducerRecord<byte[], byte[]>> out = s.acknowledged();
    assertEquals(List.of(TOPICS.dlq(), TOPICS.ready()), out.stream().map(ProducerRecord::topic).toList(), "" + out);
    assertEquals("huge", text(out.get(0).value()), "dead-lettered with its value");
    DeadLetter why = DeadLetter.fromHeaders(out.get(0).headers());
    assertTrue(why.detail().contains(TOPICS.ready()) && why.detail().contains("2000000 bytes"), why.detail());
    assertEquals("fine", text(out.get(1).value()));
    assertEquals(2, s.highestCommitted(ONE_SECOND));
    assertEquals(1, s.producer.aborts, "one round aborted, then no retry wait");
  }

  @Test
  @DisplayName("a dead letter too large for the DLQ goes without its value, naming where the original is")
  void shouldDeadLetterWithoutTheValueWhatTheDlqRefusesAsTooLarge() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    long offset = s.append("huge", now - 1000, paid(now - 10));
    s.producer.failing = new RecordTooLargeException("too large");
    s.producer.failOnly = r -> r.value() != null;
    s.then(() -> {}).then(() -> {}).then(() -> s.clock.setMillis(now + Relay.RETRY_MILLIS)).then(() -> {}).then(() -> {});
    s.run();

    List<ProducerRecord<byte[], byte[]>> out = s.acknowledged();
    assertEquals(List.of(TOPICS.dlq()), out.stream().map(ProducerRecord::topic).toList(), "" + out);
    assertNull(out.get(0).value(), "the value left out");
    DeadLetter why = DeadLetter.fromHeaders(out.get(0).headers());
    assertTrue(why.detail().contains(ONE_SECOND.topic() + "-0@" + offset), why.detail());
    assertEquals(1, s.highestCommitted(ONE_SECOND));
  }

  @Test
  @DisplayName("a dead letter the DLQ refuses (not authorised) is tried again after a pause, never in a busy loop")
  void shouldPauseBeforeSendingARefusedDeadLetterAgain() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("huge", now - 1000, paid(now - 10));
    s.producer.failing = new org.apache.kafka.common.errors.TopicAuthorizationException("not authorised");
    s.producer.failOnly = r -> true;
    s.then(() -> {}).then(() -> {}).then(() -> {}).then(() -> {}).then(() -> {}).then(() -> {});
    s.then(() -> {
      assertEquals(2, s.producer.aborts, "the record to ready, then its dead letter; then a wait");
      s.producer.failing = null; // an operator fixed the ACL
      s.clock.setMillis(now + Relay.RETRY_MILLIS);
    });
    s.run();

    assertEquals(List.of(TOPICS.dlq()), s.acknowledged().stream().map(ProducerRecord::topic).toList());
    assertEquals(1, s.highestCommitted(ONE_SECOND));
  }

  @Test
  @DisplayName("commits no offset before the produces it covers are acknowledged")
  void shouldCommitOnlyAfterTheProducesAreAcknowledged() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.then(() -> s.append("b", now - 1000, paid(now - 10)));
    s.run();

    List<ScriptedRelay.CommitSeen> seen = s.producer.commitsSeen;
    // At each commit, every record below the committed offset (offset i carries the i-th id) had
    // been acknowledged already: judged at that moment, not against what was written in the end.
    List<String> ids = List.of("a", "b");
    for (ScriptedRelay.CommitSeen commit : seen) {
      long offset = commit.offsets().get(ONE_SECOND).offset();
      List<String> acknowledged = commit.acknowledgedBefore().stream().map(r -> text(r.value())).toList();
      assertEquals(ids.subList(0, (int) offset), acknowledged,
          "commit at offset " + offset + " covers records not yet acknowledged");
    }
    assertEquals(List.of(1L, 2L), seen.stream().map(c -> c.offsets().get(ONE_SECOND).offset()).toList(),
        "one transaction per round: " + seen);
  }

  @Test
  @DisplayName("holds a record until its clock reaches the not-before, not a millisecond sooner, and returns it stamped with it")
  void shouldNeverReleaseARecordBeforeItsNotBefore() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    long notBefore = now + 700;
    s.append("later", now, paid(notBefore));
    s.then(() -> s.clock.setMillis(notBefore - 1));
    s.then(() -> assertEquals(List.of(), s.acknowledged(), "nothing released 1 ms before its not-before"));
    s.then(() -> s.clock.setMillis(notBefore));
    s.then(() -> {}); // resumed after the last poll: its records come with this one
    s.then(() -> assertEquals(1, s.acknowledged().size(), "released at its not-before"));
    s.run();

    ProducerRecord<byte[], byte[]> out = s.acknowledged().get(0);
    assertEquals(TOPICS.ready(), out.topic());
    assertEquals(notBefore, out.timestamp(), "stamped with its not-before");
    assertEquals(1, s.highestCommitted(ONE_SECOND));
  }

  @Test
  @DisplayName("releases a record due now although one before it in the partition is due later, and commits below the one still held")
  void shouldReleaseARecordAsItFallsDueWithoutWaitingForEarlierOnes() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("later", now, paid(now + 900)); // offset 0, due in 900 ms
    s.append("now", now, paid(now)); // offset 1, due now
    s.then(() -> {
      assertEquals(List.of("now"), s.acknowledged().stream().map(r -> text(r.value())).toList(),
          "the record due now left; the one before it, due later, did not");
      OffsetAndMetadata commit = s.lastCommit(ONE_SECOND);
      assertEquals(0, commit.offset(), "the commit stays below the record still held");
      assertEquals(SettledOffsets.of(1, 2), SettledOffsetsCodec.decode(0, commit.metadata()), "and says offset 1 has gone");
      s.clock.setMillis(now + 899);
    });
    s.then(() -> {
      assertEquals(1, s.acknowledged().size(), "nothing released 1 ms before its not-before");
      s.clock.setMillis(now + 900);
    });
    s.then(() -> assertEquals(new OffsetAndMetadata(2, ""), s.lastCommit(ONE_SECOND), "both gone: committed past both"));
    s.run();

    assertEquals(List.of("now", "later"), s.acknowledged().stream().map(r -> text(r.value())).toList());
  }

  @Test
  @DisplayName("a relay that takes a partition over from one that released out of order releases the rest once and nothing twice")
  void shouldNeitherRepeatNorLoseOutOfOrderReleasesAcrossATakeover() {
    ScriptedRelay first = new ScriptedRelay();
    long now = first.clock.millis();
    first.append("a-later", now, paid(now + 900));
    first.append("b-now", now, paid(now));
    first.append("c-later", now, paid(now + 900));
    first.append("d-now", now, paid(now));
    first.run(); // closes before the later ones are due
    assertEquals(List.of("b-now", "d-now"), first.acknowledged().stream().map(r -> text(r.value())).toList());

    ScriptedRelay second = new ScriptedRelay().startingFrom(Map.of(ONE_SECOND, first.lastCommit(ONE_SECOND)));
    second.append("a-later", now, paid(now + 900));
    second.append("b-now", now, paid(now));
    second.append("c-later", now, paid(now + 900));
    second.append("d-now", now, paid(now));
    second.then(() -> {
      assertEquals(List.of(), second.acknowledged(), "what the first relay released is not released again");
      second.clock.setMillis(now + 900);
    });
    second.run();

    assertEquals(List.of("a-later", "c-later"), second.acknowledged().stream().map(r -> text(r.value())).toList(),
        "the rest, once");
    assertEquals(new OffsetAndMetadata(4, ""), second.lastCommit(ONE_SECOND));
  }

  @Test
  @DisplayName("a record released out of order whose produce fails is not recorded as gone, and is relayed once when the broker is back")
  void shouldNotRecordAFailedOutOfOrderRelease() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("later", now + 500, paid(now + 5000)); // leaves its 1 s step at now + 1500
    s.append("now", now, paid(now));
    s.producer.failing = new TimeoutException("batch expired");
    s.then(() -> {
      assertEquals(List.of(), s.commits(), "no commit records the failed release");
      s.producer.failing = null;
      s.clock.setMillis(now + Relay.RETRY_MILLIS);
    });
    s.run();

    assertEquals(List.of("now"), s.acknowledged().stream().map(r -> text(r.value())).toList());
    OffsetAndMetadata commit = s.lastCommit(ONE_SECOND);
    assertEquals(0, commit.offset());
    assertEquals(SettledOffsets.of(1, 2), SettledOffsetsCodec.decode(0, commit.metadata()));
  }

  @Test
  @DisplayName("relays nothing of a partition whose commit it cannot read, until it can")
  void shouldWaitForThePartitionsCommitBeforeRelayingIt() {
    ScriptedRelay s = new ScriptedRelay()
        .startingFrom(Map.of(ONE_SECOND, new OffsetAndMetadata(1, Relay.METADATA_FORMAT.prefix() + "1.0")));
    long now = s.clock.millis();
    s.append("gone-before", now, paid(now));
    s.append("held", now, paid(now + 100));
    s.append("released-before", now, paid(now));
    s.append("new", now, paid(now));
    s.consumer.committedFails = new TimeoutException("committed offsets: no answer");
    s.then(() -> {
      assertEquals(List.of(), s.acknowledged(), "nothing relayed while its commit is unknown");
      s.consumer.committedFails = null;
      s.clock.setMillis(now + Relay.FIRST_LOOKUP_RETRY_MILLIS); // the first retry of the look-up
    });
    s.then(() -> {});
    s.run();

    assertEquals(List.of("held", "new"), s.acknowledged().stream().map(r -> text(r.value())).sorted().toList(),
        "from its commit, skipping what its metadata says went");
    assertEquals(new OffsetAndMetadata(4, ""), s.lastCommit(ONE_SECOND));
  }

  @Test
  @DisplayName("a partition whose commit stays unreadable costs the other partitions' rounds a short look-up now and then, not one per round")
  void shouldNotHoldEveryRoundForACommitThatStaysUnreadable() {
    ScriptedRelay s = new ScriptedRelay().assigningFirst(List.of(ONE_SECOND_1));
    long start = s.clock.millis();
    s.consumer.committedFails = new TimeoutException("committed offsets: no answer");
    s.consumer.committedFailsFor = ONE_SECOND;
    s.consumer.blockedOn = s.clock; // each failing look-up holds the loop for its whole timeout
    s.append("waits", start, paid(start));
    // Partition 0 comes, its commit unreadable for good; meanwhile partition 1 gets a record due
    // every 100 ms for 4 s.
    s.then(() -> s.consumer.rebalance(List.of(ONE_SECOND, ONE_SECOND_1)));
    int records = 40;
    for (int i = 0; i < records; i++) {
      int n = i;
      s.then(() -> {
        long now = s.clock.millis();
        s.append(ONE_SECOND_1, bytes("r" + n), bytes("r" + n), now, paid(now + 100));
        s.clock.setMillis(now + 100);
      });
    }
    s.run();

    assertEquals(records, s.lateness.size(), "partition 1 went on: " + s.lateness);
    long worst = s.lateness.stream().mapToLong(Long::longValue).max().orElseThrow();
    assertTrue(worst <= Relay.RETRY_LOOKUP_TIMEOUT.toMillis(),
        "a record of partition 1 left " + worst + " ms late: " + s.lateness);
    List<Duration> retries = s.consumer.blocked.subList(1, s.consumer.blocked.size());
    assertTrue(retries.stream().allMatch(Relay.RETRY_LOOKUP_TIMEOUT::equals), "retries wait briefly: " + retries);
    long elapsed = s.clock.millis() - start;
    assertTrue(retries.size() <= 2 + elapsed / Relay.FIRST_LOOKUP_RETRY_MILLIS / 2,
        retries.size() + " retries in " + elapsed + " ms: they back off");
    assertTrue(s.acknowledged().stream().noneMatch(r -> text(r.value()).equals("waits")),
        "nothing of the partition whose commit is unknown");
  }

  @Test
  @DisplayName("records read again after the consumer's position went back are skipped: each relayed once, the relay goes on")
  void shouldSkipRecordsReadAgainAfterThePositionWentBack() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now, paid(now + 100));
    s.append("b", now, paid(now + 100));
    s.then(() -> s.consumer.seek(ONE_SECOND, 0)); // read again from the start, both still held
    s.then(() -> {
      s.append("c", now, paid(now + 100));
      s.clock.setMillis(now + 100);
    });
    s.then(() -> s.consumer.seek(ONE_SECOND, 1)); // and again, after a and b went
    s.then(() -> {});
    s.run();

    assertNull(s.died(), "the relay's loop goes on");
    assertEquals(List.of("a", "b", "c"), s.acknowledged().stream().map(r -> text(r.value())).sorted().toList(),
        "each once");
    assertEquals(3, s.highestCommitted(ONE_SECOND));
  }

  @Test
  @DisplayName("a record whose step ends before its not-before hops to a smaller step instead of leaving early")
  void shouldHopARecordWhoseStepEndsBeforeItsNotBefore() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    long notBefore = now + 2500;
    s.append("long", now, paid(notBefore)); // on the 1 s step: its stay ends at now + 1000, 1.5 s before
    s.then(() -> s.clock.setMillis(now + 1000));
    s.run();

    List<ProducerRecord<byte[], byte[]>> out = s.acknowledged();
    assertEquals(1, out.size());
    assertEquals(TOPICS.delay(java.time.Duration.ofSeconds(1)), out.get(0).topic(),
        "hopped to the largest step not above the 1.5 s left: 1 s again");
    assertEquals(now + 1000, out.get(0).timestamp(), "placed there now");
  }

  /** A kind of malformed record: its headers and value, and a word its dead letter's detail must name. */
  record Malformed(String name, Headers headers, byte[] value, String detailNames) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Malformed> malformed() {
    long at = 1_000_000;
    return Stream.of(
        new Malformed("no not-before", without(paid(at), HeaderNames.NOT_BEFORE), bytes("v"), HeaderNames.NOT_BEFORE),
        new Malformed("garbage not-before", with(paid(at), HeaderNames.NOT_BEFORE, "soon"), bytes("v"), "soon"),
        new Malformed("empty not-before", with(paid(at), HeaderNames.NOT_BEFORE, ""), bytes("v"), HeaderNames.NOT_BEFORE),
        new Malformed("negative not-before", with(paid(at), HeaderNames.NOT_BEFORE, "-5"), bytes("v"), "-5"),
        new Malformed("not-before beyond a long", with(paid(at), HeaderNames.NOT_BEFORE, "99999999999999999999"), bytes("v"),
            HeaderNames.NOT_BEFORE),
        new Malformed("no return-to", without(paid(at), HeaderNames.RETURN_TO), bytes("v"), HeaderNames.RETURN_TO),
        new Malformed("blank return-to", with(paid(at), HeaderNames.RETURN_TO, " "), bytes("v"), HeaderNames.RETURN_TO),
        new Malformed("return-to the DLQ (a replay)", with(paid(at), HeaderNames.RETURN_TO, TOPICS.dlq()), bytes("v"), TOPICS.dlq()),
        new Malformed("return-to a delay topic", with(paid(at), HeaderNames.RETURN_TO, ONE_SECOND.topic()), bytes("v"),
            ONE_SECOND.topic()),
        new Malformed("return-to outcomes", with(paid(at), HeaderNames.RETURN_TO, TOPICS.outcomes()), bytes("v"), TOPICS.outcomes()),
        new Malformed("return-to a foreign topic", with(paid(at), HeaderNames.RETURN_TO, "payments.commands"), bytes("v"),
            "payments.commands"),
        new Malformed("null value", paid(at), null, "no value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  @DisplayName("dead-letters a malformed record with a reason and its original bytes and headers, and goes on with the partition")
  void shouldDeadLetterAMalformedRecordAndGoOn(Malformed bad) {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    Headers original = new RecordHeaders(bad.headers().toArray());
    original.add("x-producer", bytes("kept"));
    long offset = s.append(ONE_SECOND, bytes("bad-key"), bad.value(), now - 1000, original);
    s.append("behind", now - 1000, paid(now - 10));
    s.run();

    assertNull(s.died(), "the relay's loop did not die");
    List<ProducerRecord<byte[], byte[]>> out = s.acknowledged();
    assertEquals(2, out.size(), "the dead letter and the record behind it: " + out);
    ProducerRecord<byte[], byte[]> letter = out.get(0);
    assertEquals(TOPICS.dlq(), letter.topic(), "dead-lettered, never produced where its header says");
    assertEquals("bad-key", text(letter.key()), "the original key");
    assertArrayEquals(bad.value(), letter.value(), "the original value");
    assertEquals("kept", text(letter.headers().lastHeader("x-producer").value()), "the original headers");
    DeadLetter why = DeadLetter.fromHeaders(letter.headers());
    assertEquals(Reason.INVALID.code(), why.reason());
    assertTrue(why.detail().contains(bad.detailNames()), "the detail says what was wrong: " + why.detail());
    assertEquals(ONE_SECOND.topic() + "-0@" + offset, why.source());
    assertEquals(List.of(why.detail()), s.deadLetters, "the relay reported it");
    assertEquals(TOPICS.ready(), out.get(1).topic(), "the record behind it was released");
    assertEquals(2, s.highestCommitted(ONE_SECOND), "both committed");
  }

  @Test
  @DisplayName("returns a paid record without a key (the gate keeps a producer's null key)")
  void shouldReturnARecordWithoutAKey() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append(ONE_SECOND, null, bytes("unkeyed"), now - 1000, paid(now - 10));
    s.run();

    assertEquals(List.of(TOPICS.ready()), s.acknowledged().stream().map(ProducerRecord::topic).toList());
    assertNull(s.acknowledged().get(0).key());
  }

  @Test
  @DisplayName("returns records to inbound (the gate's own returns of queued events) as well as to ready")
  void shouldReturnRecordsToEveryReturnTopic() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("paid", now - 1000, paid(now - 10));
    s.append("queued", now - 1000, with(paid(now - 10), HeaderNames.RETURN_TO, TOPICS.regate()));
    s.append("queued before regate existed", now - 1000, with(paid(now - 10), HeaderNames.RETURN_TO, TOPICS.inbound()));
    s.run();

    assertEquals(List.of(TOPICS.ready(), TOPICS.regate(), TOPICS.inbound()), s.acknowledged().stream().map(ProducerRecord::topic).toList());
  }

  @Test
  @DisplayName("a high event returning to ready (a dispatcher's retry, a paid deferral) goes to ready.high (issue 36)")
  void shouldReleaseAHighEventToTheHighReadyTopic() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("high retry", now - 1000, with(paid(now - 10), HeaderNames.PRIORITY, "high"));
    s.append("low retry", now - 1000, with(paid(now - 10), HeaderNames.PRIORITY, "low"));
    s.append("high to be gated again", now - 1000,
        with(with(paid(now - 10), HeaderNames.PRIORITY, "high"), HeaderNames.RETURN_TO, TOPICS.regate()));
    s.append("high naming ready.high", now - 1000,
        with(with(paid(now - 10), HeaderNames.PRIORITY, "high"), HeaderNames.RETURN_TO, TOPICS.readyHigh()));
    s.run();

    assertEquals(List.of(TOPICS.readyHigh(), TOPICS.ready(), TOPICS.regate(), TOPICS.readyHigh()),
        s.acknowledged().stream().map(ProducerRecord::topic).toList());
    assertEquals("high", HeaderValues.last(s.acknowledged().get(0).headers(), HeaderNames.PRIORITY).orElseThrow(),
        "the class goes with it, for its next trip");
  }

  private static Headers with(Headers headers, String name, String value) {
    HeaderValues.put(headers, name, value);
    return headers;
  }

  private static Headers without(Headers headers, String name) {
    headers.remove(name);
    return headers;
  }
}
