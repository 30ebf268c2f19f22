package io.sluice.lab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuSnapshotTest {
  private static CpuSnapshot.ThreadCpu stream(long nanos) {
    return new CpuSnapshot.ThreadCpu(CpuSnapshot.STREAM, nanos);
  }

  @Test
  void perEventCostsAddTheJvmAndRedisAndBusyIsStreamCpuOverTheThreadsWallTime() {
    // One second of wall time, two stream threads, 100,000 events: the JVM spent 1.5 s of CPU,
    // Redis 0.2 s, the stream threads 1.0 s between them.
    CpuSnapshot before = new CpuSnapshot(0, 10_000_000_000L, 5_000_000,
        Map.of(1L, stream(1_000_000_000L), 2L, stream(2_000_000_000L)));
    CpuSnapshot after = new CpuSnapshot(1_000_000_000L, 11_500_000_000L, 5_200_000,
        Map.of(1L, stream(1_600_000_000L), 2L, stream(2_400_000_000L)));
    CpuSnapshot.PerEvent p = before.to(after, 100_000, 2);
    assertEquals(17.0, p.machineMicros(), 1e-9);
    assertEquals(2.0, p.redisMicros(), 1e-9);
    assertEquals(10.0, p.streamMicros(), 1e-9);
    assertEquals(0.5, p.streamBusy(), 1e-9);
  }

  @Test
  void aThreadThatEndsAndOneThatStartsBetweenTheSnapshotsCountOnlyTheirCpuInBetween() {
    // Stream thread 1 had 3 s when the run began and ended during it; thread 7 started during it
    // and has spent 0.4 s; thread 2 lived throughout and spent 0.1 s. Summing the family in each
    // snapshot would give (0.4 + 1.1) - (3 + 1) = -2.5 s; per thread it is 0.4 + 0.1 s.
    CpuSnapshot before = new CpuSnapshot(0, 10_000_000_000L, 0,
        Map.of(1L, stream(3_000_000_000L), 2L, stream(1_000_000_000L)));
    CpuSnapshot after = new CpuSnapshot(1_000_000_000L, 11_000_000_000L, 0,
        Map.of(2L, stream(1_100_000_000L), 7L, stream(400_000_000L)));
    CpuSnapshot.PerEvent p = before.to(after, 100_000, 1);
    assertEquals(5.0, p.streamMicros(), 1e-9);
    assertEquals(0.5, p.streamBusy(), 1e-9);
    assertEquals(5.0, p.breakdown().get(CpuSnapshot.STREAM), 1e-9);
    // What thread 1 spent before it ended is no live thread's: it is left to the JVM's residue.
    assertEquals(5.0, p.breakdown().get(CpuSnapshot.JVM), 1e-9);
  }

  @Test
  void theBreakdownSplitsTheJvmByThreadFamilyAndLeavesTheRestToGcAndJit() {
    CpuSnapshot before = new CpuSnapshot(0, 1_000_000_000L, 0,
        Map.of(1L, stream(0), 2L, new CpuSnapshot.ThreadCpu("broker", 0)));
    // 100 events: the JVM spent 1 ms, of which stream threads 400 µs and the broker 100 µs.
    CpuSnapshot after = new CpuSnapshot(1_000_000L, 1_001_000_000L, 50,
        Map.of(1L, stream(400_000L), 2L, new CpuSnapshot.ThreadCpu("broker", 100_000L)));
    CpuSnapshot.PerEvent p = before.to(after, 100, 2);
    assertEquals(List.of(CpuSnapshot.JVM, CpuSnapshot.STREAM, "broker", "redis-server"),
        List.copyOf(p.breakdown().keySet()), "largest first");
    assertEquals(5.0, p.breakdown().get(CpuSnapshot.JVM), 1e-9);
    assertEquals(4.0, p.breakdown().get(CpuSnapshot.STREAM), 1e-9);
    assertEquals(0.5, p.breakdown().get("redis-server"), 1e-9);
    assertEquals("GC and JIT 5.0, stream threads 4.0, broker 1.0, redis-server 0.5", p.describe());
  }

  @Test
  void threadsAreGroupedByTheNamesKafkaAndLettuceGiveThem() {
    assertEquals(CpuSnapshot.STREAM, CpuSnapshot.family("tp-1-gate-6f1c-StreamThread-2"));
    assertEquals("producers' I/O",
        CpuSnapshot.family("kafka-producer-network-thread | tp-1-gate-6f1c-StreamThread-2-producer"));
    assertEquals("broker", CpuSnapshot.family("data-plane-kafka-request-handler-3"));
    assertEquals("Redis client", CpuSnapshot.family("lettuce-nioEventLoop-4-1"));
    assertEquals("other Java threads", CpuSnapshot.family("Signal Dispatcher"));
  }

  @Test
  void theDispatchScenarioTellsTheReceiverFromTheSenderAndTheBroker() {
    assertEquals(CpuSnapshot.RECEIVER, CpuSnapshot.family(DispatchReceiver.THREADS + "3"));
    assertEquals(CpuSnapshot.RECEIVER, CpuSnapshot.family("HTTP-Dispatcher"));
    assertEquals("HTTP client", CpuSnapshot.family("sluice-http-2"));
    assertEquals("HTTP client", CpuSnapshot.family("HttpClient-1-SelectorManager"));
    assertEquals("dispatcher", CpuSnapshot.family("sluice-dispatcher"));
    assertEquals("dispatcher", CpuSnapshot.family("sluice-dispatch-timer"));
    // A consumer's heartbeat thread is the client's, not the broker's, whatever its kafka- prefix.
    assertEquals("consumers' heartbeat",
        CpuSnapshot.family("kafka-coordinator-heartbeat-thread | dispatch-1"));
  }

  @Test
  void noEventsOrNoTimeIsUnknownRatherThanADivisionByZero() {
    CpuSnapshot s = new CpuSnapshot(5, 1, 1, Map.of());
    assertSame(CpuSnapshot.PerEvent.UNKNOWN, s.to(new CpuSnapshot(9, 2, 2, Map.of()), 0, 2));
    assertSame(CpuSnapshot.PerEvent.UNKNOWN, s.to(s, 10, 2));
  }

  @Test
  void aSnapshotOfThisJvmCountsItsOwnCpu() {
    CpuSnapshot a = CpuSnapshot.take(null);
    long spin = 0;
    for (int i = 0; i < 50_000_000; i++) {
      spin += i ^ (spin >>> 3);
    }
    CpuSnapshot b = CpuSnapshot.take(null);
    assertTrue(b.processNanos() > a.processNanos(), "spun " + spin);
    assertEquals(0, b.redisMicros(), "no Redis to ask");
  }
}
