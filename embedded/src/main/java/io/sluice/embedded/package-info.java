/**
 * Real servers on free ports, for the {@code demo}, {@code chaos} and {@code bench} commands and
 * for the tests of every module.
 *
 * <p>Why real servers and not mocks: Sluice's invariants (no over-admission, nothing lost, no early
 * release) depend on the exact behaviour of Kafka transactions and of Redis Lua scripts, so they
 * are tested and demonstrated against the real thing. Everything here starts in seconds on a
 * machine with only a JDK and Maven:
 *
 * <ul>
 *   <li>{@link io.sluice.embedded.InJvmKafkaBroker} is a single-node KRaft broker inside the JVM,
 *       on Kafka's own server classes ({@code KafkaRaftServer}), not a test kit;
 *       {@link io.sluice.embedded.StandaloneKafkaBroker} is the same node as a process of its own.</li>
 *   <li>{@link io.sluice.embedded.RedisServerProcess} runs {@code redis-server} (installed, or the
 *       static one Maven brings) as a child process that can be stopped, killed and restarted on
 *       the same port.</li>
 *   <li>{@link io.sluice.embedded.RedisClusterProcess} runs a local Redis Cluster of N masters.</li>
 * </ul>
 *
 * <p>This module ships in the application jar, so it holds no test code. The JUnit 5 extension
 * ({@code RealServers}) and the Testcontainers broker are in the {@code sluice-testkit} module, in
 * this same package, used at test scope only.
 *
 * <p>Settings, each read from a system property first and then from an environment variable of
 * the same name: {@code SLUICE_REDIS_SERVER} (a path, or {@code bundled}); the test kit adds
 * {@code SLUICE_TEST_KAFKA} and {@code SLUICE_KAFKA_IMAGE}.
 */
package io.sluice.embedded;
