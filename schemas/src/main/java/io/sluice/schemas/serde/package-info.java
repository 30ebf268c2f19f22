/**
 * JSON: the one configured mapper, the Kafka serde over it, and the JSON Schema files shipped in
 * the jar, compiled one way ({@code SchemaFiles}).
 */
package io.sluice.schemas.serde;
