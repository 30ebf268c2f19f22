/**
 * Real servers on free ports, for the tests of every module and for the {@code demo} command.
 *
 * <p>Why real servers and not mocks: Sluice's invariants (no over-admission, nothing lost, no early
 * release) depend on the exact behaviour of Kafka transactions and of Redis Lua scripts, so they
 * are tested against the real thing. Everything here starts in seconds on a laptop without Docker:
 *
 * <ul>
 *   <li>{@link io.sluice.embedded.KafkaBrokers#start()} gives a {@link io.sluice.embedded.KafkaBroker}:
 *       a Testcontainers broker where Docker answers, otherwise a single-node KRaft broker inside
 *       the JVM ({@link io.sluice.embedded.InJvmKafkaBroker}).</li>
 *   <li>{@link io.sluice.embedded.RedisServerProcess} runs {@code redis-server} as a child process
 *       that a test can stop, kill and restart on the same port.</li>
 *   <li>{@link io.sluice.embedded.RedisClusterProcess} runs a local Redis Cluster of N masters.</li>
 *   <li>{@link io.sluice.embedded.RealServers} is the JUnit 5 extension that shares one broker and
 *       one Redis per test JVM.</li>
 * </ul>
 *
 * <p>Settings, each read from a system property first and then from an environment variable of
 * the same name: {@code SLUICE_TEST_KAFKA} ({@code auto}, {@code embedded}, {@code container}),
 * {@code SLUICE_KAFKA_IMAGE}, {@code SLUICE_REDIS_SERVER}, {@code SLUICE_REDIS_CLI}.
 */
package io.sluice.embedded;
