/**
 * OpenTelemetry traces of the stages ({@code tracing:} in the config): the SDK behind the roles'
 * {@link io.sluice.schemas.trace.StageTracer}, exporting over OTLP/HTTP, and only when configured.
 */
package io.sluice.app.tracing;
