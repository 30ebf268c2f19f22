package io.sluice.config;

import java.time.Duration;

/**
 * Settings of the gate role (an extension of the DESIGN.md shape; every field has a default).
 *
 * @param applicationId    Kafka Streams application id; instances sharing it share the work
 * @param streamThreads    stream threads per instance
 * @param maxPayloadBytes  largest accepted inbound value, in bytes
 * @param leaseTarget      how much of a tenant's observed demand one lease should cover
 * @param maxLease         most extra cost units taken from Redis in one lease (0: no leases)
 * @param redisTimeout     a limiter call slower than this counts as Redis unavailable
 * @param receipts         whether each decision of the limit step is also written as a receipt
 *                         to {@code <prefix>receipts} (off by default)
 */
public record GateConfig(
    String applicationId,
    int streamThreads,
    int maxPayloadBytes,
    Duration leaseTarget,
    int maxLease,
    Duration redisTimeout,
    boolean receipts) {

  /** Without receipts. */
  public GateConfig(String applicationId, int streamThreads, int maxPayloadBytes,
      Duration leaseTarget, int maxLease, Duration redisTimeout) {
    this(applicationId, streamThreads, maxPayloadBytes, leaseTarget, maxLease, redisTimeout,
        false);
  }
}
