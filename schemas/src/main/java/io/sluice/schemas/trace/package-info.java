/**
 * The trace contract: the W3C {@code traceparent} a record carries from stage to stage
 * ({@code TraceParent}, read under a bound; {@code TraceHeaders}), and the seam the stages trace
 * through ({@code StageTracer}, {@code StageSpan}; off by default, the SDK behind it in {@code app}).
 */
package io.sluice.schemas.trace;
