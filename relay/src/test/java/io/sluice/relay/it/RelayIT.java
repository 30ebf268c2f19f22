package io.sluice.relay.it;

import io.sluice.testkit.TestConfigs;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.DelayLadder;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.relay.Relay;
import io.sluice.relay.RelayService;
import io.sluice.relay.it.Arrivals.Arrival;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The relay, the delay ladder's waiting room, against a real KRaft broker.
 *
 * <p>Records are placed into the delay topics the way the gate places them: on the step
 * {@link DelayLadder#stepFor} picks for the wait, stamped with the placement time, with
 * {@code sluice-not-before} and {@code sluice-return-to} headers. The return topic is created
 * with {@code message.timestamp.type=LogAppendTime}: the relay stamps a returned record with its
 * not-before, so only the broker's append time says when the relay actually let it out. Each
 * record is checked against that and against the wall clock of the reader that receives it (the
 * broker, the relay and the reader share this JVM's clock).
 */
@ExtendWith(RealServers.class)
@Execution(ExecutionMode.CONCURRENT) // each case has its own topics and group; they mostly wait
class RelayIT {
  private static final int PARTITIONS = 3;
  private static final Duration ARRIVAL_DEADLINE = Duration.ofSeconds(30);

  /** The one lock every case takes: shared by the wait-bound ones, alone by the 250 ms one. */
  private static final String TIMING = "relay-timing";

  /** One watcher for the class: the default handler is process-wide, and the cases run at once. */
  private static ThreadDeaths threadDeaths;

  @BeforeAll
  static void watchThreads() {
    threadDeaths = ThreadDeaths.watch();
  }

  @AfterAll
  static void noRelayThreadDied() {
    threadDeaths.close();
    assertEquals(List.of(), threadDeaths.deaths(), "threads that died of an uncaught exception");
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("releases thousands of interleaved waits never before their not-before, loses none, and promptly")
  void shouldReleaseEveryRecordAtOrAfterItsNotBeforeAndLoseNone(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    Ladder s = Ladder.create(broker, "250ms, 1s, 5s", redis.uri());
    RecordingRelayListener listener = new RecordingRelayListener();
    Random random = new Random(20240611L);
    int count = 3000;
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer();
         RelayService relay = RelayService.start(s.config, listener)) {
      s.awaitRelaying(p, arrivals);
      List<String> ids = new ArrayList<>();
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < count; i++) {
        String id = "r" + i;
        ids.add(id);
        // Waits of 0-6 s interleaved in every partition of every step.
        sends.add(s.place(p, id, i % PARTITIONS, System.currentTimeMillis() + random.nextInt(6001)));
        if (i % 100 == 99) {
          // Pacing the load (not waiting for a condition): 100 records every 50 ms, 1.5 s in all.
          LockSupport.parkNanos(start + (i / 100 + 1) * 50_000_000L - System.nanoTime());
        }
      }
      acknowledged(p, sends);
      List<Arrival> all = only(ids, arrivals.awaitIds(ids, ARRIVAL_DEADLINE));

      assertNoneEarly(all);
      Map<String, List<Arrival>> byId = Arrivals.idsOf(all);
      assertEquals(count, byId.size(), "every record arrived");
      List<Long> received = new ArrayList<>();
      List<Long> appended = new ArrayList<>();
      for (List<Arrival> copies : byId.values()) {
        received.add(copies.get(0).lateMillis());
        appended.add(copies.get(0).appendedAt() - copies.get(0).notBefore());
      }
      Lateness lateness = Lateness.of(received);
      Lateness relayOwn = Lateness.of(listener.lateness());
      System.out.println("relay lateness: " + lateness);
      System.out.println("relay lateness (broker append time): " + Lateness.of(appended)
          + "; (relay's own clock): " + relayOwn + "; duplicates=" + (all.size() - count)
          + "; hops=" + listener.hops().size());
      assertTrue(listener.lateness().stream().allMatch(late -> late >= 0), "the relay never reports a negative lateness");
      assertTrue(lateness.p99() < 1000 + 250,
          "p99 lateness " + lateness.p99() + " ms: within 1 s plus the smallest step (250 ms) unless the relay is stuck");
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("hops a wait longer than the largest step down the ladder, each stay no longer than its step, and releases it at its not-before")
  void shouldHopALongWaitDownTheLadderAndReleaseItAtItsNotBefore(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    // A 4.5 s wait on [100ms, 400ms, 1s]: 1s -> 1s -> 1s -> 1s, a stay of at most 1 s on each but
    // the last, which ends within the relay's hold (1 s) of the not-before, so it is held to it.
    Ladder s = Ladder.create(broker, "100ms, 400ms, 1s", redis.uri());
    RecordingRelayListener listener = new RecordingRelayListener();
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer();
         RelayService relay = RelayService.start(s.config, listener)) {
      s.awaitRelaying(p, arrivals);
      long notBefore = System.currentTimeMillis() + 4500;
      acknowledged(p, List.of(s.place(p, "hopper", 1, notBefore)));
      List<Arrival> all = only(List.of("hopper"), arrivals.awaitIds(List.of("hopper"), ARRIVAL_DEADLINE));
      assertNoneEarly(all);

      // Every stay on the ladder, from the delay topics themselves: placement time and step.
      List<ConsumerRecord<byte[], byte[]>> stays = KafkaClients.readUntil(broker.bootstrapServers(), s.topics.delays(),
          read -> read.stream().filter(r -> isHopper(r)).count() >= listener.hops().size() + 1, ARRIVAL_DEADLINE)
          .stream().filter(RelayIT::isHopper).sorted(Comparator.comparingLong(ConsumerRecord::timestamp)).toList();
      assertTrue(stays.size() >= 4, "4.5 s on steps of at most 1 s, held at most 1 s, takes at least four stays, saw "
          + stays.size());
      assertEquals(stays.size() - 1, listener.hops().size(), "the relay reported every hop");
      for (int i = 0; i < stays.size(); i++) {
        ConsumerRecord<byte[], byte[]> stay = stays.get(i);
        assertEquals(s.topics.delay(s.ladder.stepFor(notBefore - stay.timestamp())), stay.topic(),
            "stay " + i + " is on the largest step not above what is left of the wait");
        if (i > 0) {
          ConsumerRecord<byte[], byte[]> before = stays.get(i - 1);
          long leftAt = s.ladder.releaseAt(before.timestamp(), notBefore, stepOf(s, before.topic()));
          assertTrue(stay.timestamp() >= leftAt, "stay " + (i - 1) + " on " + before.topic() + " ended early");
        }
      }
      assertEquals(s.topics.delay(Duration.ofSeconds(1)), stays.get(1).topic(), "a wait still over 1 s hops to 1s again");
      Arrival out = all.get(0);
      System.out.println("relay hops: " + stays.stream().map(ConsumerRecord::topic).toList()
          + ", released " + out.lateMillis() + " ms after its not-before");
      assertTrue(out.lateMillis() < 1000, "released within 1 s of its not-before, was " + out.lateMillis() + " ms");
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("a partition paused on a head due in 5 s does not hold back records due now in other partitions")
  void shouldReleaseDueRecordsOfOtherPartitionsWhileOneIsPaused(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    Ladder s = Ladder.create(broker, "250ms, 1s, 5s", redis.uri());
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer();
         RelayService relay = RelayService.start(s.config, new RecordingRelayListener())) {
      s.awaitRelaying(p, arrivals);
      long headDue = System.currentTimeMillis() + 5000;
      // The head of 5s-0 goes first; a record due now then sits behind it (in order, as the
      // ladder allows), while the other partitions of the same topic and of the others flow.
      acknowledged(p, List.of(s.place(p, "head", 0, headDue)));
      List<String> prompt = new ArrayList<>();
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int round = 0; round < 5; round++) {
        for (int partition = 1; partition < PARTITIONS; partition++) {
          long now = System.currentTimeMillis();
          String onFiveSeconds = "due-5s-" + partition + "-" + round;
          // As the gate would have placed it 5 s ago for a 5 s wait.
          sends.add(s.send(p, s.topics.delay(Duration.ofSeconds(5)), onFiveSeconds, partition, now - 5000, now));
          String onSmallest = "due-250ms-" + partition + "-" + round;
          sends.add(s.place(p, onSmallest, partition, now));
          prompt.add(onFiveSeconds);
          prompt.add(onSmallest);
        }
        p.flush();
        arrivals.awaitIds(prompt, ARRIVAL_DEADLINE);
      }
      acknowledged(p, sends);
      List<Arrival> released = only(prompt, arrivals.snapshot());
      assertNoneEarly(released);
      Lateness lateness = Lateness.of(released.stream().map(Arrival::lateMillis).toList());
      List<Arrival> head = only(List.of("head"), arrivals.awaitIds(List.of("head"), ARRIVAL_DEADLINE));
      assertNoneEarly(head);
      System.out.println("relay next to a paused partition: " + lateness + "; head " + head.get(0).lateMillis() + " ms late");
      assertTrue(lateness.max() < 1000, "records due now came out within 1 s, slowest " + lateness.max() + " ms");
      assertTrue(head.get(0).lateMillis() < 1000, "the paused head came out within 1 s of its time");
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ_WRITE) // 250 ms: alone
  @DisplayName("releases a paused record promptly when it falls due even while nothing else flows")
  void shouldReleaseAPausedRecordPromptlyWhenNothingElseFlows(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    // A resumed partition is fetched with the next fetch request; while the relay's other
    // partitions are idle, the fetch in flight waits at the broker for data up to
    // fetch.max.wait.ms (500 ms by default) before the resumed one can be asked for. Six lone
    // records, each due on its own, would all come out within 250 ms only by luck (1 in 64) then.
    Ladder s = Ladder.create(broker, "250ms, 1s, 5s", redis.uri());
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer();
         RelayService relay = RelayService.start(s.config, new RecordingRelayListener())) {
      s.awaitRelaying(p, arrivals);
      List<String> ids = new ArrayList<>();
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (int i = 0; i < 6; i++) {
        ids.add("lone-" + i);
        sends.add(s.place(p, "lone-" + i, i % PARTITIONS, now + 1000 + i * 300L)); // 1s step, 300 ms apart
      }
      acknowledged(p, sends);
      List<Arrival> all = only(ids, arrivals.awaitIds(ids, ARRIVAL_DEADLINE));
      assertNoneEarly(all);
      Lateness appended = Lateness.of(all.stream().map(a -> a.appendedAt() - a.notBefore()).toList());
      System.out.println("relay lateness of lone records (broker append time): " + appended);
      assertTrue(appended.max() < 250, "each lone record came out within 250 ms of its time: " + appended);
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("loses nothing and releases nothing early while relays join and leave")
  void shouldLoseNothingAndReleaseNothingEarlyAcrossRebalances(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    Ladder s = Ladder.create(broker, "250ms, 1s, 5s", redis.uri());
    RecordingRelayListener first = new RecordingRelayListener();
    RecordingRelayListener second = new RecordingRelayListener();
    RecordingRelayListener third = new RecordingRelayListener();
    Random random = new Random(7L);
    int count = 1500;
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer();
         RelayService two = RelayService.start(s.config, second)) {
      List<String> ids = new ArrayList<>();
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      RelayService one = RelayService.start(s.config, first);
      int firstBeforeLoad;
      try {
        // Whichever joined second only releases once the group has given it partitions: from
        // then on the two share them.
        s.awaitRelaying(first, p, arrivals);
        s.awaitRelaying(second, p, arrivals);
        firstBeforeLoad = first.lateness().size();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
          String id = "b" + i;
          ids.add(id);
          sends.add(s.place(p, id, i % PARTITIONS, System.currentTimeMillis() + random.nextInt(6001)));
          if (i % 100 == 99) {
            LockSupport.parkNanos(start + (i / 100 + 1) * 50_000_000L - System.nanoTime());
          }
        }
        acknowledged(p, sends);
        arrivals.awaitUntil(all -> Arrivals.distinctIds(only(ids, all)) >= count / 5, ARRIVAL_DEADLINE, "a fifth arrived");
      } finally {
        one.close(); // a clean stop: settles, commits, leaves the group
      }
      int firstReleased = first.lateness().size() - firstBeforeLoad;
      List<Arrival> all;
      try (RelayService three = RelayService.start(s.config, third)) {
        s.awaitRelaying(third, p, arrivals);
        long outstanding = count - Arrivals.distinctIds(only(ids, arrivals.snapshot()));
        all = only(ids, arrivals.awaitIds(ids, ARRIVAL_DEADLINE));
        System.out.println("relay rebalance: n=" + count + " duplicates=" + (all.size() - count)
            + "; the first released " + firstReleased + " before it stopped; " + outstanding
            + " were still waiting when the third had joined; lateness "
            + Lateness.of(Arrivals.idsOf(all).values().stream().map(c -> c.get(0).lateMillis()).toList()));
        assertTrue(outstanding > 0, "the third relay joined while records were still waiting");
      }
      assertNoneEarly(all);
      assertEquals(count, Arrivals.idsOf(all).size(), "every record arrived");
      assertTrue(firstReleased > 0, "the first relay had a share of the load before it stopped");
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("a relay that released records ahead of earlier ones in their partition is replaced by one that releases the rest once, none twice")
  void shouldReleaseTheRestOnceWhenARelayThatReleasedOutOfOrderIsReplaced(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    // One step, 5 s: every wait below it shares the step's partitions, so waits of 4 s and of
    // 0.2 s alternate in each partition.
    Ladder s = Ladder.create(broker, "5s, 30s", redis.uri());
    RecordingRelayListener first = new RecordingRelayListener();
    RecordingRelayListener second = new RecordingRelayListener();
    int count = 300;
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer()) {
      List<String> soon = new ArrayList<>();
      List<String> later = new ArrayList<>();
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      try (RelayService one = RelayService.start(s.config, first)) {
        s.awaitRelaying(first, p, arrivals);
        long placed = System.currentTimeMillis();
        for (int i = 0; i < count; i++) {
          boolean isLater = i % 2 == 0; // the first record of each partition is a later one
          String id = (isLater ? "late" : "soon") + i;
          (isLater ? later : soon).add(id);
          sends.add(s.place(p, id, i % PARTITIONS, placed + (isLater ? 4000 : 200)));
        }
        acknowledged(p, sends);
        arrivals.awaitIds(soon, ARRIVAL_DEADLINE);
        assertEquals(List.of(), only(later, arrivals.snapshot()),
            "every record due soon left while the earlier records of its partition, due later, were held");
      } // a clean stop, while the later records are still held: its commits say which went
      List<Arrival> all;
      try (RelayService two = RelayService.start(s.config, second)) {
        List<String> ids = new ArrayList<>(soon);
        ids.addAll(later);
        all = only(ids, arrivals.awaitIds(ids, ARRIVAL_DEADLINE));
      }
      assertNoneEarly(all);
      assertEquals(count, Arrivals.idsOf(all).size(), "every record arrived");
      assertEquals(count, all.size(), "no record was released twice to a read_committed reader");
      assertEquals(count / 2, second.lateness().size(), "the second relay released the later half, nothing else");
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("a relay that dies between produce and commit is replaced without losing a record, releasing one early, or releasing one twice")
  void shouldLoseNothingAndReleaseNothingTwiceWhenARelayDiesBeforeCommitting(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    Ladder s = Ladder.create(broker, "250ms, 1s, 5s", redis.uri());
    Random random = new Random(11L);
    int count = 600;
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer()) {
      CrashingConsumer consumer = s.crashingConsumer();
      CrashingProducer producer = s.crashingProducer();
      Relay doomed = new Relay(consumer, producer, s.topics, Clock.systemUTC(), new RecordingRelayListener());
      AtomicReference<Throwable> death = new AtomicReference<>();
      Thread thread = new Thread(() -> {
        try {
          doomed.run();
        } catch (Throwable e) {
          death.set(e);
        }
      }, "doomed-relay");
      thread.start();
      List<String> ids = new ArrayList<>();
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String id = "c" + i;
        ids.add(id);
        sends.add(s.place(p, id, i % PARTITIONS, System.currentTimeMillis() + random.nextInt(4001)));
      }
      acknowledged(p, sends);
      arrivals.awaitUntil(all -> Arrivals.distinctIds(all) >= count / 4, ARRIVAL_DEADLINE, "a quarter arrived");
      consumer.crash();
      producer.crash();
      thread.join(ARRIVAL_DEADLINE.toMillis());
      assertFalse(thread.isAlive(), "the crashed relay's loop ended");
      assertInstanceOf(CrashingConsumer.Crash.class, death.get(), "the relay died at a commit");
      assertTrue(producer.abandoned() > 0, "the crash hit the window: records produced, their transaction never ended");
      long crashedAt = System.currentTimeMillis();
      int beforeCrash = arrivals.snapshot().size();

      List<Arrival> all;
      try (RelayService successor = RelayService.start(s.config, new RecordingRelayListener())) {
        arrivals.awaitUntil(a -> a.size() > beforeCrash, ARRIVAL_DEADLINE, "the successor released something");
        long tookOver = System.currentTimeMillis() - crashedAt;
        all = only(ids, arrivals.awaitIds(ids, ARRIVAL_DEADLINE));
        System.out.println("relay restart: n=" + count + " duplicates=" + (all.size() - count)
            + " (arrived before the crash: " + beforeCrash + ", left in the open transaction: "
            + producer.abandoned() + ") successor released its first record " + tookOver + " ms after the crash");
      }
      assertNoneEarly(all);
      assertEquals(count, Arrivals.idsOf(all).size(), "every record arrived");
      assertEquals(count, all.size(), "no record was released twice to a read_committed reader");
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("dead-letters a record without sluice-return-to with a reason, and goes on with the partition")
  void shouldDeadLetterARecordWithoutReturnToAndNotBlockItsPartition(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    Ladder s = Ladder.create(broker, "250ms, 1s, 5s", redis.uri());
    RecordingRelayListener listener = new RecordingRelayListener();
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer();
         RelayService relay = RelayService.start(s.config, listener)) {
      s.awaitRelaying(p, arrivals);
      String smallest = s.topics.delay(Duration.ofMillis(250));
      long now = System.currentTimeMillis();
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      sends.add(s.send(p, smallest, "homeless", 0, now, now, null));
      List<String> behind = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        behind.add("behind-" + i);
        sends.add(s.place(p, "behind-" + i, 0, now));
      }
      acknowledged(p, sends);

      List<Arrival> released = only(behind, arrivals.awaitIds(behind, ARRIVAL_DEADLINE));
      List<ConsumerRecord<byte[], byte[]>> dead = KafkaClients.readUntil(broker.bootstrapServers(), List.of(s.topics.dlq()),
          read -> !read.isEmpty(), ARRIVAL_DEADLINE);
      assertEquals(1, dead.size(), "one dead letter");
      ConsumerRecord<byte[], byte[]> letter = dead.get(0);
      assertEquals("homeless", new String(letter.key(), StandardCharsets.UTF_8), "the original key");
      assertEquals("homeless", new String(letter.value(), StandardCharsets.UTF_8), "the original value");
      DeadLetter why = DeadLetter.fromHeaders(letter.headers());
      assertEquals(Reason.INVALID.code(), why.reason());
      assertTrue(why.detail().contains(HeaderNames.RETURN_TO), "the detail names the missing header: " + why.detail());
      assertTrue(why.source().startsWith(smallest + "-0@"), "the source names where it was read: " + why.source());
      assertEquals(1, listener.deadLetters().size(), "the relay reported the dead letter");
      assertFalse(Arrivals.idsOf(arrivals.snapshot()).containsKey("homeless"), "it was not returned anywhere");
      assertNoneEarly(released);
      long slowest = released.stream().mapToLong(Arrival::lateMillis).max().orElseThrow();
      assertTrue(slowest < 1000, "the records behind it came out within 1 s, slowest " + slowest + " ms");
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("a relay whose host clock is 5 s ahead releases paid records no earlier than their not-before on Redis's clock")
  void shouldJudgeNotBeforesOnRedissClockWhenTheHostClockIsAhead(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    Ladder s = Ladder.create(broker, "250ms, 1s, 5s", redis.uri());
    // The host's clock is 5 s ahead of Redis's (which here is this machine's clock, as are the
    // broker's append times and the reader's): on its own clock the relay would let every record
    // below out at once, 1 to 3 s early.
    Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(5));
    RecordingRelayListener listener = new RecordingRelayListener();
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect();
         Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer();
         RelayService relay = RelayService.start(s.config, listener, ahead)) {
      s.awaitRelaying(p, arrivals);
      List<String> ids = new ArrayList<>();
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        // Stamped as the gate stamps a reservation: on Redis TIME.
        List<String> time = c.sync().time();
        long redisNow = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        ids.add("skewed-" + i);
        sends.add(s.place(p, "skewed-" + i, i % PARTITIONS, redisNow + 1000 + i * 400L));
      }
      acknowledged(p, sends);
      List<Arrival> all = only(ids, arrivals.awaitIds(ids, ARRIVAL_DEADLINE));
      List<String> redisAtArrival = c.sync().time();
      Lateness appended = Lateness.of(all.stream().map(a -> a.appendedAt() - a.notBefore()).toList());
      System.out.println("relay 5 s ahead of Redis, lateness on Redis's clock (broker append time): " + appended);
      assertNoneEarly(all);
      long redisEnd = Long.parseLong(redisAtArrival.get(0)) * 1000 + Long.parseLong(redisAtArrival.get(1)) / 1000;
      assertTrue(all.stream().allMatch(a -> a.notBefore() <= redisEnd), "Redis's clock had reached every not-before");
      assertTrue(appended.max() < 1000, "and released within 1 s of it: " + appended);
    } finally {
      client.shutdown();
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  @DisplayName("dead-letters malformed and forged records (bad not-before, no value, a return-to Sluice never returns to) and never produces where a forged header says")
  void shouldDeadLetterMalformedAndForgedRecordsAndKeepRelaying(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    Ladder s = Ladder.create(broker, "250ms, 1s, 5s", redis.uri());
    String foreign = s.config.kafka().topicPrefix() + "foreign";
    broker.createTopics(Map.of(foreign, 1));
    RecordingRelayListener listener = new RecordingRelayListener();
    try (Arrivals arrivals = s.watchReturns(broker);
         KafkaProducer<byte[], byte[]> p = s.placer();
         RelayService relay = RelayService.start(s.config, listener)) {
      s.awaitRelaying(p, arrivals);
      String smallest = s.topics.delay(Duration.ofMillis(250));
      long now = System.currentTimeMillis();
      Map<String, Headers> bad = new java.util.LinkedHashMap<>();
      bad.put("garbage-not-before", headers("soon", s.topics.ready()));
      bad.put("negative-not-before", headers("-5", s.topics.ready()));
      bad.put("no-not-before", headers(null, s.topics.ready()));
      bad.put("forged-to-dlq", headers(Long.toString(now), s.topics.dlq()));
      bad.put("forged-to-delay", headers(Long.toString(now), s.topics.delay(Duration.ofSeconds(5))));
      bad.put("forged-to-foreign", headers(Long.toString(now), foreign));
      bad.put("no-value", headers(Long.toString(now), s.topics.ready()));
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (Map.Entry<String, Headers> b : bad.entrySet()) {
        byte[] id = b.getKey().getBytes(StandardCharsets.UTF_8);
        byte[] value = b.getKey().equals("no-value") ? null : id;
        sends.add(p.send(new ProducerRecord<>(smallest, 0, now, id, value, b.getValue())));
      }
      List<String> behind = List.of("after-bad-0", "after-bad-1", "after-bad-2");
      for (String id : behind) {
        sends.add(s.place(p, id, 0, now));
      }
      acknowledged(p, sends);

      List<Arrival> released = only(behind, arrivals.awaitIds(behind, ARRIVAL_DEADLINE));
      List<ConsumerRecord<byte[], byte[]>> dead = KafkaClients.readUntil(broker.bootstrapServers(), List.of(s.topics.dlq()),
          read -> read.size() >= bad.size(), ARRIVAL_DEADLINE);
      Map<String, DeadLetter> why = new HashMap<>();
      for (ConsumerRecord<byte[], byte[]> letter : dead) {
        why.put(new String(letter.key(), StandardCharsets.UTF_8), DeadLetter.fromHeaders(letter.headers()));
      }
      System.out.println("relay dead letters: " + why.values().stream().map(DeadLetter::detail).toList());
      assertEquals(bad.keySet(), why.keySet(), "each malformed record was dead-lettered once");
      why.values().forEach(w -> assertEquals(Reason.INVALID.code(), w.reason()));
      assertTrue(why.get("forged-to-foreign").detail().contains(foreign), why.get("forged-to-foreign").detail());
      assertTrue(why.get("garbage-not-before").detail().contains("soon"), why.get("garbage-not-before").detail());
      try (Admin admin = broker.admin()) {
        org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(foreign, 0);
        long end = admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
            .partitionResult(tp).get().offset();
        assertEquals(0, end, "nothing was produced to the topic a forged header named");
      }
      assertEquals(bad.size(), listener.deadLetters().size(), "the relay reported each dead letter");
      assertTrue(relay.isRunning(), "the relay is still running");
      assertNoneEarly(released);
      assertTrue(Set.copyOf(bad.keySet()).stream().noneMatch(Arrivals.idsOf(arrivals.snapshot())::containsKey),
          "none of them was returned to ready");
    }
  }

  private static Headers headers(String notBefore, String returnTo) {
    Headers headers = new RecordHeaders();
    if (notBefore != null) {
      headers.add(HeaderNames.NOT_BEFORE, notBefore.getBytes(StandardCharsets.UTF_8));
    }
    HeaderValues.put(headers, HeaderNames.RETURN_TO, returnTo);
    HeaderValues.put(headers, HeaderNames.PAID, "true");
    return headers;
  }

  // ---------------------------------------------------------------------------------------------

  /** A fresh set of topics under a unique prefix, with the relay's configuration for them. */
  private static final class Ladder {
    final SluiceConfig config;
    final Topics topics;
    final DelayLadder ladder;
    final String bootstrap;
    private int probes;

    private Ladder(SluiceConfig config, String bootstrap) {
      this.config = config;
      this.topics = new Topics(config.kafka().topicPrefix(), config.ladder());
      this.ladder = new DelayLadder(config.ladder());
      this.bootstrap = bootstrap;
    }

    static Ladder create(KafkaBroker broker, String steps, String redisUri) throws Exception {
      String yaml = """
          ladder: [%s]
          tiers: { free: { weight: 1 } }
          defaultTier: free
          providers:
            any-api:
              url: http://localhost:8081/
              rate: 10/s
              quotas: { free: { capacity: 1, refill: 1/s } }
          """.formatted(steps);
      Ladder s = new Ladder(TestConfigs.of(yaml, broker, redisUri), broker.bootstrapServers());
      try (Admin admin = broker.admin()) {
        admin.createTopics(List.of(new NewTopic(s.topics.ready(), PARTITIONS, (short) 1)
            .configs(Map.of("message.timestamp.type", "LogAppendTime")))).all().get();
      }
      Map<String, Integer> all = new HashMap<>();
      all.put(s.topics.ready(), PARTITIONS); // exists already: this waits for its leaders
      all.put(s.topics.dlq(), 1);
      s.topics.delays().forEach(d -> all.put(d, PARTITIONS));
      broker.createTopics(all);
      return s;
    }

    Arrivals watchReturns(KafkaBroker broker) {
      return Arrivals.watch(broker.bootstrapServers(), topics.ready(), PARTITIONS);
    }

    /** Places a record as the gate does: on the step for its wait, stamped now, returning to ready. */
    Future<RecordMetadata> place(KafkaProducer<byte[], byte[]> p, String id, int partition, long notBefore) {
      long now = System.currentTimeMillis();
      return send(p, topics.delay(ladder.stepFor(notBefore - now)), id, partition, now, notBefore);
    }

    Future<RecordMetadata> send(KafkaProducer<byte[], byte[]> p, String topic, String id, int partition, long placedAt, long notBefore) {
      return send(p, topic, id, partition, placedAt, notBefore, topics.ready());
    }

    Future<RecordMetadata> send(
        KafkaProducer<byte[], byte[]> p, String topic, String id, int partition, long placedAt, long notBefore, String returnTo) {
      Headers headers = new RecordHeaders();
      HeaderValues.put(headers, HeaderNames.NOT_BEFORE, notBefore);
      if (returnTo != null) {
        HeaderValues.put(headers, HeaderNames.RETURN_TO, returnTo);
      }
      byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
      return p.send(new ProducerRecord<>(topic, partition, placedAt, bytes, bytes, headers));
    }

    /** Returns once a record due now has come back: the relay has its partitions and is relaying. */
    void awaitRelaying(KafkaProducer<byte[], byte[]> p, Arrivals arrivals) throws Exception {
      String probe = "probe-" + probes++;
      acknowledged(p, List.of(place(p, probe, 0, System.currentTimeMillis())));
      arrivals.awaitIds(List.of(probe), ARRIVAL_DEADLINE);
    }

    /**
     * Sends records due now to every partition of the smallest step until the relay reporting to
     * {@code listener} has released one: the group has given it partitions and it is relaying.
     */
    void awaitRelaying(RecordingRelayListener listener, KafkaProducer<byte[], byte[]> p, Arrivals arrivals) throws Exception {
      // Observed: whether the relay released something; while it has not, one more round of probes.
      Await.untilRead("the relay to release something", ARRIVAL_DEADLINE, () -> {
        boolean released = !listener.lateness().isEmpty();
        if (!released) {
          List<String> round = new ArrayList<>();
          List<Future<RecordMetadata>> sends = new ArrayList<>();
          for (int partition = 0; partition < PARTITIONS; partition++) {
            String probe = "probe-" + probes++;
            round.add(probe);
            sends.add(place(p, probe, partition, System.currentTimeMillis()));
          }
          try {
            acknowledged(p, sends);
            arrivals.awaitIds(round, ARRIVAL_DEADLINE);
          } catch (Exception e) {
            throw new AssertionError("a round of probes failed", e);
          }
        }
        return released;
      }, released -> released);
    }

    /**
     * A consumer configured as {@link RelayService} configures the relay's, in the same group, with
     * the shortest session the broker allows so a successor takes over within seconds.
     */
    CrashingConsumer crashingConsumer() {
      Map<String, Object> c = new HashMap<>();
      c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      c.put(ConsumerConfig.GROUP_ID_CONFIG, config.kafka().topicPrefix() + RelayService.GROUP_SUFFIX);
      c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000);
      c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
      c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6000);
      c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1000);
      return new CrashingConsumer(c);
    }

    /**
     * The producer that places records, as the gate would. One request in flight: a newly created
     * partition can answer the first produce with NOT_LEADER_OR_FOLLOWER and append the next one,
     * after which an idempotent producer with several requests in flight retries the first forever
     * with OUT_OF_ORDER_SEQUENCE_NUMBER (KAFKA-15591) and the test fails on a send timeout.
     */
    KafkaProducer<byte[], byte[]> placer() {
      return new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
          ProducerConfig.ACKS_CONFIG, "all",
          ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
          ProducerConfig.LINGER_MS_CONFIG, 2),
          new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A transactional producer configured as {@link RelayService} configures the relay's. */
    CrashingProducer crashingProducer() {
      return new CrashingProducer(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
          ProducerConfig.ACKS_CONFIG, "all",
          ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
          ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG, "doomed-relay-" + System.nanoTime(),
          ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 5000,
          ProducerConfig.LINGER_MS_CONFIG, 1));
    }
  }

  private static boolean isHopper(ConsumerRecord<byte[], byte[]> r) {
    return "hopper".equals(new String(r.key(), StandardCharsets.UTF_8));
  }

  private static Duration stepOf(Ladder s, String topic) {
    return s.ladder.steps().stream().filter(step -> s.topics.delay(step).equals(topic)).findFirst().orElseThrow();
  }

  private static void acknowledged(KafkaProducer<byte[], byte[]> p, List<Future<RecordMetadata>> sends) throws Exception {
    p.flush();
    for (Future<RecordMetadata> f : sends) {
      f.get();
    }
  }

  /** The arrivals of {@code ids} only (not the readiness probes). */
  private static List<Arrival> only(List<String> ids, List<Arrival> all) {
    Set<String> wanted = Set.copyOf(ids);
    return all.stream().filter(a -> wanted.contains(a.id())).toList();
  }

  /**
   * Never early, by two clocks: the broker appended the returned record, and the reader received
   * it, no sooner than its not-before.
   */
  private static void assertNoneEarly(List<Arrival> all) {
    List<String> early = new ArrayList<>();
    for (Arrival a : all) {
      assertEquals(TimestampType.LOG_APPEND_TIME, a.timestampType(), "the return topic keeps append times");
      if (a.appendedAt() < a.notBefore() || a.receivedAt() < a.notBefore()) {
        early.add(a.id() + " appended " + (a.notBefore() - a.appendedAt()) + " ms and received "
            + (a.notBefore() - a.receivedAt()) + " ms before its not-before");
      }
    }
    assertTrue(early.isEmpty(), early.size() + " of " + all.size() + " released early, e.g. "
        + early.subList(0, Math.min(5, early.size())));
  }
}
