/**
 * The gate role: a Kafka Streams processor that strips forged headers, validates each event,
 * resolves its tier and charges its tenant's quota (admit, defer or dead), written exactly once.
 * See docs/gate.md.
 */
package io.sluice.gate;
