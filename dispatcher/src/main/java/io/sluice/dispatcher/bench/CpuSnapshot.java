package io.sluice.dispatcher.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

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
 * @param wallNanos    monotonic time of the snapshot
 * @param processNanos the JVM's CPU time
 * @param redisMicros  redis-server's CPU time (user + system); 0 when unknown
 * @param streamNanos  the live stream threads' CPU time
 */
record CpuSnapshot(long wallNanos, long processNanos, long redisMicros, long streamNanos) {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  static CpuSnapshot take(RedisProbe redis) {
    long stream = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().contains("-StreamThread-")) {
        long cpu = THREADS.getThreadCpuTime(t.getId());
        stream += Math.max(0, cpu);
      }
    }
    long process = ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : 0;
    return new CpuSnapshot(System.nanoTime(), process, redis == null ? 0 : redis.cpuMicros(), stream);
  }

  /** What one event cost between two snapshots. */
  record PerEvent(double machineMicros, double redisMicros, double streamMicros, double streamBusy) {
    static final PerEvent UNKNOWN = new PerEvent(0, 0, 0, 0);
  }

  /**
   * CPU per event from this snapshot to {@code later} over {@code events} events, and the share
   * of {@code threads} stream threads' wall time they were on a CPU.
   */
  PerEvent to(CpuSnapshot later, long events, int threads) {
    if (events <= 0 || later.wallNanos <= wallNanos) {
      return PerEvent.UNKNOWN;
    }
    double redis = (later.redisMicros - redisMicros) / (double) events;
    double process = (later.processNanos - processNanos) / 1000.0 / events;
    double stream = (later.streamNanos - streamNanos) / 1000.0 / events;
    double busy = (later.streamNanos - streamNanos) / (double) ((later.wallNanos - wallNanos) * threads);
    return new PerEvent(process + redis, redis, stream, busy);
  }
}
