package io.sluice.lab.bench;

import java.io.PrintStream;
import java.util.UUID;

/**
 * What every scenario runs against: one Kafka and one Redis (embedded or given), the size of the
 * run, and where progress goes. Each scenario names its topics, groups and keys with
 * {@link #unique}, so scenarios never see each other's data on shared servers.
 *
 * @param quick tiny sizes: every scenario and every figure, in seconds, for the smoke test
 */
record BenchContext(String bootstrap, String redisUri, RedisProbe redis, boolean quick,
    PrintStream out) {

  /** A fresh name: {@code what} and 8 random hex digits. */
  static String unique(String what) {
    return what + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** {@code full} in a full run, {@code quick} with --quick. */
  int size(int full, int quick) {
    return this.quick ? quick : full;
  }

  void progress(String format, Object... args) {
    out.printf("bench: " + format + "%n", args);
    out.flush();
  }
}
