package io.sluice.topology.delay;

import static io.sluice.topology.delay.ScriptedRelay.ONE_SECOND;
import static io.sluice.topology.delay.ScriptedRelay.TOPICS;
import static io.sluice.topology.delay.ScriptedRelay.paid;
import static io.sluice.topology.delay.ScriptedRelay.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The relay's loop on a mock consumer and producer, step by step: what it commits, and when it
 * releases. The same guarantees against a real broker are in {@code RelayIT}.
 */
class RelayTest {

  @Test
  @DisplayName("a failed produce followed by a failing offset lookup and a close commits nothing past the unwritten records")
  void shouldNeverCommitPastARecordWhoseProduceFailed() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.append("b", now - 1000, paid(now - 10));
    s.append("c", now - 1000, paid(now - 10));
    // The broker refuses the batch and then does not answer the offset lookup either (a rewind to
    // the committed offsets would time out, or be woken by close).
    s.producer.failing = new TimeoutException("batch expired");
    s.consumer.committedFails = new TimeoutException("committed offsets: no answer");
    s.then(() -> assertEquals(0, s.consumer.position(ONE_SECOND),
        "the relay went back to the first record it could not write"));
    s.run();

    assertEquals(List.of(), s.acknowledged(), "nothing was written");
    assertEquals(0, s.highestCommitted(ONE_SECOND), "no commit covers a record that was never written: " + s.consumer.commits);
    assertNull(s.died(), "the relay closed cleanly");
  }

  @Test
  @DisplayName("after a failed produce the relay writes the records again, and commits them only once acknowledged")
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
    s.then(() -> assertEquals(2, s.highestCommitted(ONE_SECOND), "committed once written"));
    s.run();

    assertEquals(List.of("a", "b"), s.acknowledged().stream().map(r -> text(r.value())).toList());
    assertEquals(2, s.highestCommitted(ONE_SECOND));
    assertNull(s.died());
  }

  @Test
  @DisplayName("commits no offset before the produces it covers are acknowledged")
  void shouldCommitOnlyAfterTheProducesAreAcknowledged() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    s.append("a", now - 1000, paid(now - 10));
    s.then(() -> s.append("b", now - 1000, paid(now - 10)));
    s.run();

    // Every commit the relay made covers only records the producer had acknowledged by then.
    List<ProducerRecord<byte[], byte[]>> written = s.acknowledged();
    assertEquals(List.of("a", "b"), written.stream().map(r -> text(r.value())).toList());
    for (var commit : s.consumer.commits) {
      assertTrue(commit.get(ONE_SECOND).offset() <= written.size(), "commit " + commit + " past what was written");
    }
    assertEquals(2, s.highestCommitted(ONE_SECOND));
  }

  @Test
  @DisplayName("holds a record until its clock reaches the not-before, not a millisecond sooner, and returns it stamped with it")
  void shouldNeverReleaseARecordBeforeItsNotBefore() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    long notBefore = now + 700;
    s.append("later", now, paid(notBefore));
    s.then(() -> s.clock.set(notBefore - 1));
    s.then(() -> assertEquals(List.of(), s.acknowledged(), "nothing released 1 ms before its not-before"));
    s.then(() -> s.clock.set(notBefore));
    s.then(() -> {}); // resumed after the last poll: its records come with this one
    s.then(() -> assertEquals(1, s.acknowledged().size(), "released at its not-before"));
    s.run();

    ProducerRecord<byte[], byte[]> out = s.acknowledged().get(0);
    assertEquals(TOPICS.ready(), out.topic());
    assertEquals(notBefore, out.timestamp(), "stamped with its not-before");
    assertEquals(1, s.highestCommitted(ONE_SECOND));
  }

  @Test
  @DisplayName("a record whose step ends before its not-before hops to a smaller step instead of leaving early")
  void shouldHopARecordWhoseStepEndsBeforeItsNotBefore() {
    ScriptedRelay s = new ScriptedRelay();
    long now = s.clock.millis();
    long notBefore = now + 1500;
    s.append("long", now, paid(notBefore)); // on the 1 s step: its stay ends at now + 1000
    s.then(() -> s.clock.set(now + 1000));
    s.run();

    List<ProducerRecord<byte[], byte[]>> out = s.acknowledged();
    assertEquals(1, out.size());
    assertEquals(TOPICS.delay(java.time.Duration.ofMillis(250)), out.get(0).topic(), "hopped to the 250 ms step");
    assertEquals(now + 1000, out.get(0).timestamp(), "placed there now");
  }
}
