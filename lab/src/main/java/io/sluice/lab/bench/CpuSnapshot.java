package io.sluice.lab.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where the machine's CPU went during a measured run, from two snapshots: the bench JVM's process
 * CPU (the broker, every Sluice role, the load and the measuring consumer all run in it),
 * redis-server's (its own {@code INFO cpu}), and the Kafka Streams stream threads' own (their
 * names end in {@code -StreamThread-<n>}; one topology runs at a time in the bench).
 *
 * <p>On a machine whose cores are all busy, events per second is cores over the CPU one event
 * costs the whole machine; so the CPU per event of the gate and of the pass-through explain their
 * ratio whatever else shares the machine, and the stream threads' busy share says whether the
 * threads deciding events were the limit (near 1) or waited (for input, commits, or Redis).
 *
 * <p>Threads are kept one by one, by id, not summed per family: a stream thread that ends and
 * another that starts between the two snapshots would otherwise make the family's sum drop, and
 * its CPU go negative. A thread's share of the interval is its CPU now less its CPU at the first
 * snapshot (0 when it started since); a thread that ended in between loses only the CPU it spent
 * after the first snapshot (the JVM no longer reports it), which then shows in {@link #JVM}.
 *
 * @param wallNanos    monotonic time of the snapshot
 * @param processNanos the JVM's CPU time
 * @param redisMicros  redis-server's CPU time (user + system); 0 when unknown
 * @param threads      each live Java thread's CPU time, by thread id
 */
record CpuSnapshot(long wallNanos, long processNanos, long redisMicros, Map<Long, ThreadCpu> threads) {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  static final String STREAM = "stream threads";
  /** The threads of the {@code dispatch} scenario's receiver (its HTTP server's too). */
  static final String RECEIVER = "receiver";
  static final String BROKER = "broker";
  /** The JVM's CPU that no live Java thread accounts for: its GC and JIT compiler threads. */
  static final String JVM = "GC and JIT";

  /** One thread's CPU time so far, and the {@link #family} its name puts it in. */
  record ThreadCpu(String family, long nanos) {}

  CpuSnapshot {
    threads = Map.copyOf(threads);
  }

  static CpuSnapshot take(RedisProbe redis) {
    Map<Long, ThreadCpu> threads = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      long cpu = THREADS.getThreadCpuTime(t.getId());
      if (cpu >= 0) { // -1: the thread ended since it was listed
        threads.put(t.getId(), new ThreadCpu(family(t.getName()), cpu));
      }
    }
    long process = ManagementFactory.getOperatingSystemMXBean()
        instanceof OperatingSystemMXBean os ? os.getProcessCpuTime() : 0;
    return new CpuSnapshot(System.nanoTime(), process, redis == null ? 0 : redis.cpuMicros(), threads);
  }

  /** Which part of the bench's JVM a thread belongs to, by the name Kafka, Lettuce or the JDK gives it. */
  static String family(String thread) {
    if (thread.startsWith("kafka-producer-network-thread")) {
      return "producers' I/O";
    }
    if (thread.contains("-StreamThread-")) {
      return STREAM;
    }
    if (thread.startsWith("lettuce-")) {
      return "Redis client";
    }
    if (thread.startsWith(DispatchReceiver.THREADS) || thread.equals("HTTP-Dispatcher")) {
      return RECEIVER;
    }
    if (thread.startsWith("sluice-http-") || thread.startsWith("HttpClient-")) {
      return "HTTP client";
    }
    if (thread.startsWith("sluice-dispatch")) {
      return "dispatcher";
    }
    if (thread.startsWith("ForkJoinPool.commonPool-")) {
      return "common pool";
    }
    if (thread.equals("main")) {
      return "bench main (load, measuring consumer)";
    }
    if (thread.startsWith("kafka-coordinator-heartbeat-thread")) {
      return "consumers' heartbeat";
    }
    if (thread.startsWith("data-plane-kafka") || thread.startsWith("kafka-") || thread.startsWith("broker-")
        || thread.startsWith("group-coordinator") || thread.startsWith("TxnMarkerSender")
        || thread.startsWith("AddPartitionsToTxn") || thread.startsWith("quorum-") || thread.startsWith("raft-")
        || thread.startsWith("ExpirationReaper") || thread.startsWith("controller-")
        || thread.startsWith("share-coordinator") || thread.startsWith("transaction-log-manager")) {
      return BROKER;
    }
    return "other Java threads";
  }

  /**
   * What one event cost between two snapshots; {@code breakdown}: µs per event by part of the
   * machine (the JVM's thread families, {@link #JVM}, and redis-server), largest first.
   */
  record PerEvent(double machineMicros, double redisMicros, double streamMicros, double streamBusy,
      Map<String, Double> breakdown) {
    static final PerEvent UNKNOWN = new PerEvent(0, 0, 0, 0, Map.of());

    PerEvent(double machineMicros, double redisMicros, double streamMicros, double streamBusy) {
      this(machineMicros, redisMicros, streamMicros, streamBusy, Map.of());
    }

    /** The breakdown as {@code part 1.2, part 0.3} (µs per event). */
    String describe() {
      StringBuilder b = new StringBuilder();
      breakdown.forEach((part, micros) -> b.append(b.length() == 0 ? "" : ", ")
          .append(String.format(Locale.ROOT, "%s %.1f", part, micros)));
      return b.toString();
    }
  }

  /**
   * CPU per event from this snapshot to {@code later} over {@code events} events, and the share
   * of {@code threads} stream threads' wall time they were on a CPU.
   */
  PerEvent to(CpuSnapshot later, long events, int threads) {
    if (events <= 0 || later.wallNanos <= wallNanos) {
      return PerEvent.UNKNOWN;
    }
    Map<String, Long> spentByFamily = later.spentByFamilySince(this);
    long streamNanos = spentByFamily.getOrDefault(STREAM, 0L);
    double redis = (later.redisMicros - redisMicros) / (double) events;
    double process = (later.processNanos - processNanos) / 1000.0 / events;
    double stream = streamNanos / 1000.0 / events;
    double busy = streamNanos / (double) ((later.wallNanos - wallNanos) * threads);
    Map<String, Double> parts = new HashMap<>();
    long threadNanos = 0;
    for (Map.Entry<String, Long> f : spentByFamily.entrySet()) {
      threadNanos += f.getValue();
      parts.put(f.getKey(), f.getValue() / 1000.0 / events);
    }
    if (!later.threads.isEmpty()) {
      parts.put(JVM, Math.max(0, later.processNanos - processNanos - threadNanos) / 1000.0 / events);
    }
    parts.put("redis-server", redis);
    Map<String, Double> largestFirst = new LinkedHashMap<>();
    parts.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> largestFirst.put(e.getKey(), e.getValue()));
    return new PerEvent(process + redis, redis, stream, busy, largestFirst);
  }

  /**
   * CPU each family's threads spent since {@code earlier}: per thread alive now, its CPU less what
   * it had then (0 if it started since). A thread's CPU time only grows, so no share is negative.
   */
  private Map<String, Long> spentByFamilySince(CpuSnapshot earlier) {
    Map<String, Long> spent = new TreeMap<>();
    threads.forEach((id, now) -> {
      ThreadCpu then = earlier.threads.get(id);
      long before = then == null ? 0 : then.nanos();
      spent.merge(now.family(), Math.max(0, now.nanos() - before), Long::sum);
    });
    return spent;
  }
}
