/**
 * The operations port: {@code /metrics}, {@code /ready}, {@code /live}, {@code /health} and the
 * console's files; one {@code HealthCheck} per concern (Kafka reachable, the Redis circuit,
 * learned limits, pauses, hanging transactions), their report, and the metrics' JMX and Prometheus
 * exposure.
 */
package io.sluice.app.ops;
